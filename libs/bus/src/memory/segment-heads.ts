import type { SegmentHooks } from './journal';
import { EMPTY_HEADERS, type Group, type PartitionLog, type TopicLog } from './memory-group';

export interface SegmentHeadsOptions {
  /** Topics whose every message outlives retention (copied into each new segment's head). */
  keepWhole: ReadonlySet<string>;
  /** Not journaled: no start to keep. */
  replyTopic?: string;
  /** A partition's journal index after the segments before `firstBase` were deleted. */
  reindex: (log: PartitionLog, firstBase: number) => void;
}

/**
 * What the memory bus writes at the head of each journal segment so that the segment stands alone
 * once the ones before it are deleted: every topic, each partition's first offset in it (a log that
 * starts past 0 keeps its offsets, as Kafka's does after retention), every committed offset, and
 * the kept-whole topics' messages. Also where each partition starts once old segments go.
 */
export class SegmentHeads implements SegmentHooks {
  /** By segment base: each partition's first offset written in that segment or after it. */
  private readonly starts = new Map<number, Map<PartitionLog, number>>();

  constructor(
    private readonly topics: ReadonlyMap<string, TopicLog>,
    private readonly groups: ReadonlyMap<string, Group>,
    private readonly options: SegmentHeadsOptions,
  ) {}

  keepsWhole(topic: string): boolean {
    return this.options.keepWhole.has(topic);
  }

  /** Called between batches: every visible message is in an older segment, the rest will not be. */
  header(base: number): string[] {
    const lines: string[] = [];
    const starts = new Map<PartitionLog, number>();
    for (const [name, t] of this.topics) lines.push(JSON.stringify(['t', name, t.partitions.length]));
    for (const [name, t] of this.topics) {
      if (name === this.options.replyTopic) continue;
      for (const log of t.partitions) {
        if (!this.keepsWhole(name)) {
          starts.set(log, log.visibleEnd);
          lines.push(JSON.stringify(['s', name, log.partition, log.visibleEnd]));
          continue;
        }
        for (const m of log.read(log.start, log.visibleEnd)) {
          const headers = m.headers === EMPTY_HEADERS || !Object.keys(m.headers).length ? 0 : m.headers;
          lines.push(
            JSON.stringify([
              'm',
              name,
              log.partition,
              Number(m.offset),
              m.key,
              m.value,
              headers,
              m.timestamp,
            ]),
          );
        }
      }
    }
    for (const group of this.groups.values())
      // Not `committed`: a commit whose record is still queued must not reach the disk before the
      // outputs its turn published (queued before it).
      for (const [key, offset] of group.journaled) {
        const cut = key.lastIndexOf('\u0000');
        lines.push(JSON.stringify(['c', group.id, key.slice(0, cut), Number(key.slice(cut + 1)), offset]));
      }
    this.starts.set(base, starts);
    return lines;
  }

  /** The segments before `firstBase` were deleted: their partitions now start later. */
  deleted(firstBase: number): void {
    const starts = this.starts.get(firstBase);
    for (const base of this.starts.keys()) if (base < firstBase) this.starts.delete(base);
    for (const t of this.topics.values())
      for (const log of t.partitions) {
        const start = starts?.get(log);
        if (start !== undefined && start > log.start) log.start = start;
        this.options.reindex(log, firstBase);
      }
  }

  /** An `s` record on replay: past the log's end, the segments before this one were deleted. */
  restoreStart(log: PartitionLog, start: number, segmentBase: number): void {
    let starts = this.starts.get(segmentBase);
    if (!starts) this.starts.set(segmentBase, (starts = new Map()));
    starts.set(log, start);
    if (start <= log.visibleEnd) return;
    if (log.visibleEnd > log.start)
      throw new Error(
        `bus journal: ${log.topic}/${log.partition} starts at ${start} after ${log.visibleEnd - 1}`,
      );
    log.messages = [];
    log.base = log.start = log.end = start;
  }
}
