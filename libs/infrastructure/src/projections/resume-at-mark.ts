import { Logger } from '@nestjs/common';
import {
  type BatchHandler,
  type Bus,
  nextOffset,
  type PartitionsListener,
  type Subscription,
} from '@perp/bus';
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

/**
 * Subscribes a projector that keeps its mark in `processed_offsets` (group and consumer `name`):
 * it resumes after its mark on assignment, and `forget` drops a partition's state when it is
 * assigned or revoked.
 */
export function subscribeAtMark(
  bus: Bus,
  o: {
    name: string;
    topics: readonly string[];
    marks: ProcessedOffsetRepository;
    forget: (partition: number) => void;
    batchHandler: BatchHandler;
    maxBatch?: number;
    /** A projection off the order and price paths (see SubscribeOptions.background). */
    background?: boolean;
    /** See SubscribeOptions.minFetchWaitMs. */
    minFetchWaitMs?: number;
    /**
     * Runs for each assigned partition once the subscription resumes after its mark, before any of
     * its messages: a projection writes again what a hot store may have lost. A failure is logged
     * and the assignment goes on (the next assignment tries again).
     */
    restore?: (partition: number) => Promise<unknown>;
  },
): Promise<Subscription> {
  const resume = resumeAtMark(o.marks, o.name, o.forget);
  return bus.subscribe({
    groupId: o.name,
    topics: o.topics,
    background: o.background,
    ...(o.minFetchWaitMs ? { minFetchWaitMs: o.minFetchWaitMs } : {}),
    batchHandler: o.batchHandler,
    ...(o.maxBatch ? { maxBatch: o.maxBatch } : {}),
    onAssigned: async (tps, sub) => {
      await resume(tps, sub);
      if (o.restore)
        for (const tp of tps)
          await o
            .restore(tp.partition)
            .catch((e: unknown) =>
              new Logger(o.name).warn(
                `partition ${tp.partition}: hot-store forms not restored: ${String(e)}`,
              ),
            );
    },
    onRevoked: (tps) => {
      for (const tp of tps) o.forget(tp.partition);
    },
  });
}
