import { bucketOpen, nextBucketOpen, type StatsPeriod } from './kline-intervals';

/** A futures-data query's window: Binance's startTime, endTime (ms, inclusive) and limit. */
export interface PeriodWindow {
  startTime?: number;
  endTime?: number;
  limit: number;
}

/**
 * The period buckets (open times, ascending) a futures-data query answers, paged as Binance pages
 * its series: with startTime the first `limit` buckets opening at or after it, otherwise the last
 * `limit` buckets up to endTime. A bucket opens within [startTime, endTime]; none opens after
 * `now`'s bucket (the current bucket is answered, the future is not). Empty when the window is.
 */
export function periodBuckets(period: StatsPeriod, window: PeriodWindow, now: number): number[] {
  const { startTime, endTime, limit } = window;
  if (limit < 1) return [];
  const last = bucketOpen(period, Math.min(endTime ?? now, now));
  const out: number[] = [];
  if (startTime !== undefined) {
    const first = bucketOpen(period, startTime) === startTime ? startTime : nextBucketOpen(period, startTime);
    for (let b = first; b <= last && out.length < limit; b = nextBucketOpen(period, b)) out.push(b);
    return out;
  }
  for (let b = last; out.length < limit; b = bucketOpen(period, b - 1)) out.push(b);
  return out.reverse();
}

/** One answered bucket and the point that stands for it. */
export interface FilledBucket<T> {
  /** The bucket's open time. */
  time: number;
  point: T;
  /** True when `point` is of an earlier bucket (this one had no point of its own). */
  carried: boolean;
}

/**
 * Continuity of a futures-data series whose store keeps a point only for buckets with trades:
 * each bucket gets the last point at or before it, so a quiet bucket carries the figures as they
 * last stood. Buckets before the first point are left out (nothing was known then), and so is a
 * point's absence: no bucket is invented before the series starts. `points` are ascending by
 * `timeOf` (pass the last point before the first bucket too, or the first buckets are left out).
 */
export function fillForward<T>(
  buckets: readonly number[],
  points: readonly T[],
  timeOf: (point: T) => number,
): FilledBucket<T>[] {
  const out: FilledBucket<T>[] = [];
  let next = 0;
  let standing: T | undefined;
  for (const time of buckets) {
    while (next < points.length && timeOf(points[next]!) <= time) standing = points[next++];
    if (standing === undefined) continue;
    out.push({ time, point: standing, carried: timeOf(standing) < time });
  }
  return out;
}
