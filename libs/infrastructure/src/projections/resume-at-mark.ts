import { nextOffset, type PartitionsListener } from '@perp/bus';
import type { ProcessedOffsetRepository } from '@perp/persistence';

/**
 * The `onAssigned` of a projector that writes its mark in `processed_offsets` with each turn: every
 * assigned partition continues after that mark, whatever the bus committed (the mark decides).
 * `forget` drops what the projector held of the partition, so a new owner starts from the writes.
 */
export function resumeAtMark(
  marks: ProcessedOffsetRepository,
  consumer: string,
  forget: (partition: number) => void = () => undefined,
): PartitionsListener {
  return async (tps, sub) => {
    for (const tp of tps) {
      forget(tp.partition);
      const mark = await marks.get(consumer, tp.topic, tp.partition);
      if (mark !== undefined && BigInt(mark) >= 0n) sub.seek({ ...tp, offset: nextOffset(mark) });
    }
  };
}
