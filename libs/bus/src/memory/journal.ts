import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { BusLogger } from '../bus';

/**
 * One JSON array per line:
 *   ["t", topic, partitions]                                   a topic and its partition count
 *   ["m", topic, partition, offset, key, value, headers|0, ts] a published message
 *   ["c", group, topic, partition, offset]                     a committed offset
 */
export type JournalRecord =
  | ['t', string, number]
  | ['m', string, number, number, string, unknown, Record<string, string> | 0, number]
  | ['c', string, string, number, number];

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
}

type Done = (err?: Error) => void;

const FILE = 'bus.journal';
const LOCK = 'bus.lock';
const READ_CHUNK = 4 << 20;
const NEWLINE = 0x0a;

/**
 * The memory bus's append-only file. Appends made in one event-loop turn are written together by one
 * write(2) (group commit); their callbacks run after the write, so an acknowledged record is in the
 * file. On open, the records are replayed in order and a torn tail (a crash mid-write) is cut off.
 */
export class Journal {
  private fd = -1;
  /** The file's length once every flushed batch is written: where the next batch starts. */
  private size = 0;
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
    onRecord: (r: JournalRecord, position: number) => void,
    onFlushed: () => void = () => undefined,
  ): Journal {
    const j = new Journal(options, logger, onFlushed);
    mkdirSync(options.dir, { recursive: true });
    j.lock();
    try {
      j.replay(onRecord);
      j.fd = openSync(j.path, 'a');
      j.size = fstatSync(j.fd).size;
      if (j.fsync === 'interval') {
        j.timer = setInterval(() => j.syncInBackground(), options.fsyncIntervalMs ?? 100);
        j.timer.unref();
      }
    } catch (e) {
      j.unlock();
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
   * written end is reached (records still queued are not in the file yet).
   */
  readFrom(position: number, visit: (r: JournalRecord) => boolean): void {
    const fd = openSync(this.path, 'r');
    try {
      // Small reads: a reader usually wants a few records near `position`.
      eachLine(fd, position, this.size, 64 << 10, (text) => visit(JSON.parse(text) as JournalRecord));
    } finally {
      closeSync(fd);
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
      this.unlock();
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
    this.onFlushed();
  };

  private syncInBackground(): void {
    if (!this.dirty || this.syncing || this.fd < 0) return;
    this.dirty = false;
    this.syncing = true;
    fdatasync(this.fd, (e) => {
      this.syncing = false;
      if (e) this.logger.error(`bus journal ${this.path}: fdatasync: ${e.message}`);
    });
  }

  private replay(onRecord: (r: JournalRecord, position: number) => void): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r+');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
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
        onRecord(record, position);
        count++;
        good = next;
        return true;
      });
      if (good < size) {
        // Written but never acknowledged (kill mid-write), or never synced (machine crash).
        this.logger.warn(`bus journal ${this.path}: dropping ${size - good} bytes of torn tail`);
        ftruncateSync(fd, good);
      }
      this.logger.log(`bus journal ${this.path}: replayed ${count} records`);
    } finally {
      closeSync(fd);
    }
  }

  private lock(): void {
    try {
      writeFileSync(this.lockPath, String(process.pid), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(readFileSync(this.lockPath, 'utf8'));
    if (holder && holder !== process.pid && alive(holder)) {
      throw new Error(`bus journal ${this.options.dir} is in use by process ${holder}`);
    }
    writeFileSync(this.lockPath, String(process.pid));
  }

  private unlock(): void {
    try {
      if (Number(readFileSync(this.lockPath, 'utf8')) === process.pid) unlinkSync(this.lockPath);
    } catch {
      /* already gone */
    }
  }
}

/**
 * Calls `onLine` with the text of each complete line of `fd` in `[from, end)`, its position and the
 * position after its newline, in order, until it returns false; reads `chunkSize` bytes at a time.
 * Bytes after the last newline are not a line.
 */
function eachLine(
  fd: number,
  from: number,
  end: number,
  chunkSize: number,
  onLine: (text: string, position: number, next: number) => boolean,
): void {
  const chunk = Buffer.allocUnsafe(chunkSize);
  let carry: Buffer = Buffer.alloc(0);
  let pos = from; // file position of carry[0]
  while (pos + carry.length < end) {
    const at = pos + carry.length;
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, end - at), at);
    if (n === 0) return;
    const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
      if (!onLine(buf.toString('utf8', start, nl), pos + start, pos + nl + 1)) return;
      start = nl + 1;
    }
    carry = Buffer.from(buf.subarray(start));
    pos += start;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
