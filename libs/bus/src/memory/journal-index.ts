import type { BusMessage } from '../bus';
import type { Journal, JournalRecord } from './journal';
import { EMPTY_HEADERS, type PartitionLog } from './memory-group';

/** Every this many offsets of a partition, the journal position of its record is kept. */
const INDEX_EVERY = 64;

/**
 * Where in the journal each partition's messages are, for the readers behind what memory holds:
 * the position of the batch or line holding every INDEX_EVERY-th offset, and the partition's first.
 */
export class JournalIndex {
  private readonly byLog = new Map<PartitionLog, { offsets: number[]; positions: number[] }>();

  /** `offset` of `log` is at (or after) journal `position`; kept for every INDEX_EVERY-th offset. */
  add(log: PartitionLog, offset: number, position: number): void {
    let ix = this.byLog.get(log);
    // The first offset too: a log starts past 0 once old segments are deleted.
    if (offset % INDEX_EVERY !== 0 && ix?.offsets.length) return;
    if (!ix) this.byLog.set(log, (ix = { offsets: [], positions: [] }));
    ix.offsets.push(offset);
    ix.positions.push(position);
  }

  /**
   * Segments before `firstBase` are gone: their positions are forgotten, and the partition's first
   * offset still in the journal is found from `firstBase` (its head holds what was copied).
   */
  trim(log: PartitionLog, firstBase: number): void {
    const ix = this.byLog.get(log);
    if (!ix) return;
    let drop = 0;
    while (drop < ix.positions.length && ix.positions[drop]! < firstBase) drop++;
    ix.offsets.splice(0, drop);
    ix.positions.splice(0, drop);
    if (ix.offsets[0] === undefined || ix.offsets[0] > log.start) {
      ix.offsets.unshift(log.start);
      ix.positions.unshift(firstBase);
    }
  }

  /** Messages `[from, to)` of `log` read back from the journal (dropped from memory). */
  read(journal: Journal, log: PartitionLog, from: number, to: number): BusMessage[] {
    const ix = this.byLog.get(log);
    if (!ix) return [];
    // The last indexed offset at or before `from`: its record is at or after that position.
    let lo = 0;
    let hi = ix.offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ix.offsets[mid]! <= from) lo = mid;
      else hi = mid - 1;
    }
    if (ix.offsets[lo] === undefined || ix.offsets[lo]! > from) return [];
    const out: BusMessage[] = [];
    journal.readFrom(
      ix.positions[lo]!,
      (r) => {
        if (r[0] !== 'm' || r[1] !== log.topic || r[2] !== log.partition) return true;
        const offset = r[3];
        if (offset >= from && offset < to) out.push(messageOf(r));
        return offset < to - 1;
      },
      { topic: log.topic, partition: log.partition, from },
    );
    return out;
  }
}

/** The message a journal record holds (values as JSON gives them back, like after a restart). */
export function messageOf(r: Extract<JournalRecord, ['m', ...unknown[]]>): BusMessage {
  const [, topic, partition, offset, key, value, headers, timestamp] = r;
  return {
    topic,
    partition,
    offset: String(offset),
    key,
    value,
    headers: headers || EMPTY_HEADERS,
    timestamp,
    inProcess: false,
  };
}
