import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { BusLogger } from '../bus';
import { eachLine, messagesOf, releaseLock, takeLock } from './journal-files';

/**
 * One JSON array per line:
 *   ["t", topic, partitions]                                   a topic and its partition count
 *   ["m", topic, partition, offset, key, value, headers|0, ts] a published message
 *   ["c", group, topic, partition, offset]                     a committed offset
 *   ["s", topic, partition, offset]                            where the partition starts once the
 *                                                              segments before this one are deleted
 */
export type JournalRecord =
  | ['t', string, number]
  | ['m', string, number, number, string, unknown, Record<string, string> | 0, number]
  | ['c', string, string, number, number]
  | ['s', string, number, number];

export type FsyncPolicy = 'always' | 'interval' | 'never';

export interface JournalOptions {
  /** Directory of `bus.journal` (created if missing). */
  dir: string;
  /**
   * When written data is forced to the disk. Every acknowledged record is already written to the
   * file (the OS page cache) and survives a crash of the process. To survive a crash of the machine:
   * `always` fdatasyncs each batch before acknowledging it; `interval` (default) every
   * `fsyncIntervalMs`, so up to that window of acknowledged records can be lost; `never` leaves it to the OS.
   */
  fsync?: FsyncPolicy;
  fsyncIntervalMs?: number;
  /** A new segment file is started once the current one holds this many bytes (default 128 MiB). */
  segmentBytes?: number;
  /**
   * A segment is deleted once its last write is this old (never the current one); checked on open
   * and when a segment is started. 0 or none: every segment is kept.
   */
  retentionMs?: number;
}

/** What the journal's owner writes at the head of each new segment and learns when old ones go. */
export interface SegmentHooks {
  /**
   * Records that make the segment starting at `base` stand alone once the ones before it are
   * deleted (topics, partition starts, committed offsets, messages that must outlive retention).
   */
  header(base: number): string[];
  /** Segments before `firstBase` were deleted. */
  deleted(firstBase: number): void;
}

interface Segment {
  /** The journal-wide position of the segment's first byte. */
  base: number;
  path: string;
  /** Bytes in the file (the current segment's grows: see Journal.size). */
  size: number;
}

type Done = (err?: Error) => void;

const FILE = 'bus.journal';
const SEGMENT = /^bus\.journal\.(\d{16})$/;
const LOCK = 'bus.lock';
const DEFAULT_SEGMENT_BYTES = 128 << 20;
const READ_CHUNK = 4 << 20;

/**
 * The memory bus's append-only log, in segment files (`bus.journal`, then `bus.journal.<position>`
 * named by the journal-wide position of their first byte, as Kafka names segments by offset).
 * Appends made in one event-loop turn are written together by one write(2) (group commit); their
 * callbacks run after the write, so an acknowledged record is in the file. On open, expired segments
 * are deleted, the rest replayed in order and a torn tail (a crash mid-write) is cut off.
 * Positions are journal-wide: they stay valid when older segments are deleted.
 */
export class Journal {
  private fd = -1;
  /** The journal-wide position after every flushed batch: where the next batch starts. */
  private size = 0;
  private segments: Segment[] = [];
  private hooks?: SegmentHooks;
  private pending: string[] = [];
  private callbacks: Done[] = [];
  private scheduled = false;
  private dirty = false;
  private syncing = false;
  private timer?: NodeJS.Timeout;
  private failure?: Error;
  private readonly fsync: FsyncPolicy;
  private readonly path: string;
  private readonly lockPath: string;

  private constructor(
    private readonly options: JournalOptions,
    private readonly logger: BusLogger,
    private readonly onFlushed: () => void,
  ) {
    this.fsync = options.fsync ?? 'interval';
    this.path = join(options.dir, FILE);
    this.lockPath = join(options.dir, LOCK);
  }

  /**
   * Takes the directory's lock, replays every record through `onRecord` (with the file position of
   * its line), then opens for appending. `onFlushed` runs after each batch is written and its
   * callbacks have run.
   */
  static open(
    options: JournalOptions,
    logger: BusLogger,
    onRecord: (r: JournalRecord, position: number, segmentBase: number) => void,
    onFlushed: () => void = () => undefined,
    hooks?: SegmentHooks,
  ): Journal {
    const j = new Journal(options, logger, onFlushed);
    j.hooks = hooks;
    mkdirSync(options.dir, { recursive: true });
    takeLock(j.lockPath, options.dir);
    try {
      j.segments = j.listSegments();
      j.expire(Date.now());
      for (let i = 0; i < j.segments.length; i++)
        j.replay(j.segments[i]!, i === j.segments.length - 1, onRecord);
      if (!j.segments.length) j.segments.push({ base: 0, path: j.path, size: 0 });
      const last = j.segments[j.segments.length - 1]!;
      j.fd = openSync(last.path, 'a');
      j.size = last.base + fstatSync(j.fd).size;
      if (j.fsync === 'interval') {
        j.timer = setInterval(() => j.syncInBackground(), options.fsyncIntervalMs ?? 100);
        j.timer.unref();
      }
    } catch (e) {
      releaseLock(j.lockPath);
      throw e;
    }
    return j;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  /** Records (or callbacks waiting for them) are queued and not yet written. */
  get busy(): boolean {
    return this.callbacks.length > 0;
  }

  /**
   * The file position where a record appended now will be written, or before it (its batch's
   * start): a reader scanning from here meets it.
   */
  get position(): number {
    return this.size;
  }

  /**
   * Reads the records written from `position` on, in order, until `visit` returns false or the
   * written end is reached (records still queued are not in the file yet). With `only`, just the
   * messages of that partition (from offset `only.from` on) are parsed and visited (the journal
   * interleaves every topic: a reader far behind would parse the others' lines for nothing).
   */
  readFrom(
    position: number,
    visit: (r: JournalRecord) => boolean,
    only?: { topic: string; partition: number; from?: number },
  ): void {
    const wanted = only && messagesOf(only.topic, only.partition, only.from ?? 0);
    const segments = this.segments;
    let i = segments.length - 1;
    while (i > 0 && segments[i]!.base > position) i--;
    for (let more = true; more && i < segments.length; i++) {
      const segment = segments[i]!;
      const end = i === segments.length - 1 ? this.size - segment.base : segment.size;
      const fd = openSync(segment.path, 'r');
      try {
        // Small reads: a reader usually wants a few records near `position`.
        eachLine(
          fd,
          Math.max(0, position - segment.base),
          end,
          64 << 10,
          (text) => {
            more = visit(JSON.parse(text) as JournalRecord);
            return more;
          },
          wanted,
        );
      } finally {
        closeSync(fd);
      }
    }
  }

  /** Queues one record (`line` is its JSON, no newline); `done` runs once it is written, or with the error. */
  append(line: string, done: Done): void {
    if (this.failure || this.fd < 0) {
      done(this.failure ?? new Error('journal closed'));
      return;
    }
    this.pending.push(line);
    this.callbacks.push(done);
    this.schedule();
  }

  /**
   * `done` runs once every record appended so far, and any appended in the rest of this event-loop
   * turn, is written: what is not journaled but must not be seen before those records.
   */
  afterWrite(done: Done): void {
    if (this.failure || this.fd < 0) {
      done(this.failure ?? new Error('journal closed'));
      return;
    }
    this.callbacks.push(done);
    this.schedule();
  }

  private schedule(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Writes what is queued, forces it to disk and releases the lock. */
  close(): void {
    if (this.fd < 0) return;
    this.flush();
    clearInterval(this.timer);
    try {
      if (!this.failure && this.fsync !== 'never') fdatasyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = -1;
      releaseLock(this.lockPath);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const callbacks = this.callbacks;
    if (callbacks.length === 0) return;
    this.callbacks = [];
    if (this.pending.length === 0) {
      for (const done of callbacks) done(this.failure);
      this.onFlushed();
      return;
    }
    this.pending.push(''); // the batch's last newline, without a second string
    const text = this.pending.join('\n');
    this.pending = [];
    let err: Error | undefined = this.failure;
    if (!err) {
      try {
        // The string is written as is (encoded outside the JS heap); a short write, which a regular
        // file gives only when it fails part way, continues from the bytes.
        const bytes = Buffer.byteLength(text);
        let off = writeSync(this.fd, text);
        if (off < bytes) {
          const data = Buffer.from(text);
          while (off < bytes) off += writeSync(this.fd, data, off);
        }
        this.size += bytes;
        if (this.fsync === 'always') fdatasyncSync(this.fd);
        else this.dirty = true;
      } catch (e) {
        // A half-written batch leaves the file in an unknown state: refuse everything from now on.
        err = this.failure = e as Error;
        this.logger.error(`bus journal ${this.path}: ${err.message}`);
      }
    }
    for (const done of callbacks) done(err);
    if (!err && this.size - this.current.base >= (this.options.segmentBytes ?? DEFAULT_SEGMENT_BYTES))
      this.roll();
    this.onFlushed();
  };

  private get current(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  /**
   * Starts a new segment with the owner's header (after the callbacks of the batch just written, so
   * what they published is in no older segment), then deletes the segments retention lets go.
   */
  private roll(): void {
    const base = this.size;
    const path = join(this.options.dir, `${FILE}.${String(base).padStart(16, '0')}`);
    const header = this.hooks?.header(base) ?? [];
    try {
      if (this.fsync !== 'never') fdatasyncSync(this.fd);
      const text = header.length ? header.join('\n') + '\n' : '';
      writeFileSync(path, text, { flag: 'wx' });
      const fd = openSync(path, 'a');
      closeSync(this.fd);
      this.current.size = base - this.current.base;
      this.fd = fd;
      this.segments.push({ base, path, size: 0 });
      this.size = base + Buffer.byteLength(text);
      this.dirty = true;
    } catch (e) {
      this.failure = e as Error;
      this.logger.error(`bus journal ${path}: ${this.failure.message}`);
      return;
    }
    if (this.expire(Date.now())) this.hooks?.deleted(this.segments[0]!.base);
  }

  /** Deletes the oldest segments whose last write is older than retention (never the newest). */
  private expire(now: number): boolean {
    const retention = this.options.retentionMs ?? 0;
    if (retention <= 0) return false;
    let deleted = 0;
    while (this.segments.length > 1 && statSync(this.segments[0]!.path).mtimeMs < now - retention) {
      unlinkSync(this.segments.shift()!.path);
      deleted++;
    }
    if (deleted)
      this.logger.log(`bus journal ${this.options.dir}: deleted ${deleted} segment(s) past retention`);
    return deleted > 0;
  }

  private listSegments(): Segment[] {
    const segments: Segment[] = [];
    for (const name of readdirSync(this.options.dir)) {
      const m = SEGMENT.exec(name);
      if (name !== FILE && !m) continue;
      const path = join(this.options.dir, name);
      segments.push({ base: m ? Number(m[1]) : 0, path, size: statSync(path).size });
    }
    return segments.sort((a, b) => a.base - b.base);
  }

  private syncInBackground(): void {
    if (!this.dirty || this.syncing || this.fd < 0) return;
    this.dirty = false;
    this.syncing = true;
    const fd = this.fd;
    fdatasync(fd, (e) => {
      this.syncing = false;
      // A segment started meanwhile closed `fd` after syncing it itself.
      if (e && fd === this.fd) this.logger.error(`bus journal ${this.path}: fdatasync: ${e.message}`);
    });
  }

  private replay(
    segment: Segment,
    last: boolean,
    onRecord: (r: JournalRecord, position: number, segmentBase: number) => void,
  ): void {
    const fd = openSync(segment.path, 'r+');
    try {
      const size = fstatSync(fd).size;
      let good = 0; // end of the last complete, valid record
      let count = 0;
      eachLine(fd, 0, size, READ_CHUNK, (text, position, next) => {
        let record: JournalRecord;
        try {
          record = JSON.parse(text) as JournalRecord;
        } catch {
          return false; // torn: cut off below
        }
        onRecord(record, segment.base + position, segment.base);
        count++;
        good = next;
        return true;
      });
      if (good < size) {
        // Only the newest segment is written to: an older one cut short was damaged on disk.
        if (!last) throw new Error(`bus journal ${segment.path}: damaged at byte ${good}`);
        // Written but never acknowledged (kill mid-write), or never synced (machine crash).
        this.logger.warn(`bus journal ${segment.path}: dropping ${size - good} bytes of torn tail`);
        ftruncateSync(fd, good);
      }
      segment.size = good;
      this.logger.log(`bus journal ${segment.path}: replayed ${count} records`);
    } finally {
      closeSync(fd);
    }
  }
}
