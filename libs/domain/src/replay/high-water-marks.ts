/** A place in a source log: an offset, and the index of one output among those of that offset. */
export interface LogPlace {
  offset: bigint;
  index: number;
}

/** One partition's mark as stored in snapshots: `[partition, offset (decimal), index]`. */
export type HighWaterMarkState = [partition: number, offset: string, index: number];

/**
 * Per source partition, the last place applied: the dedupe of replays. A consumer that applies a
 * log's outputs in order skips any output at or before its partition's mark, so a replay from an
 * older offset (after a crash) changes nothing. Places of one partition compare by offset, then by
 * index (one input may yield several outputs); partitions are independent.
 */
export class HighWaterMarks {
  private readonly marks = new Map<number, LogPlace>();

  /** True when (offset, index) of `partition` is after its mark (or the partition has none). */
  isNew(partition: number, offset: bigint, index = 0): boolean {
    const mark = this.marks.get(partition);
    return !mark || offset > mark.offset || (offset === mark.offset && index > mark.index);
  }

  /** Records (offset, index) of `partition` as applied. */
  mark(partition: number, offset: bigint, index = 0): void {
    this.marks.set(partition, { offset, index });
  }

  /** The last place applied from `partition`. */
  get(partition: number): LogPlace | undefined {
    return this.marks.get(partition);
  }

  get size(): number {
    return this.marks.size;
  }

  /** The marks as JSON-safe tuples, in the order the partitions were first marked. */
  toState(): HighWaterMarkState[] {
    return [...this.marks].map(([p, m]) => [p, m.offset.toString(), m.index]);
  }

  /** Restores `toState()`; an index left out (older snapshots) reads as 0. */
  static fromState(state: readonly (readonly [number, string, number?])[]): HighWaterMarks {
    const marks = new HighWaterMarks();
    for (const [partition, offset, index] of state) marks.mark(partition, BigInt(offset), index ?? 0);
    return marks;
  }
}
