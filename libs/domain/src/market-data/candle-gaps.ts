import type { Money } from '../money/money';
import { type Candle, flatCandle } from './candles';
import { bucketOpen, type KlineInterval, nextBucketOpen } from './kline-intervals';

/** The buckets a kline request asks for, in Binance's paging. */
export interface CandleWindow {
  /** Given: the first `limit` buckets opening at or after it. Absent: the last `limit` up to `endTime`. */
  startTime?: number;
  /** The latest time a bucket may open at: the request's endTime, never later than now. */
  endTime: number;
  limit: number;
  /**
   * The latest stored candle opening before the window's first bucket, whose close the buckets
   * before the first stored one carry. Needed only with `startTime` (see `firstBucketAtOrAfter`);
   * without it the stored candles passed in reach back far enough themselves.
   */
  before?: Candle;
}

/** Open time of the first bucket opening at or after `time`. */
export function firstBucketAtOrAfter(interval: KlineInterval, time: number): number {
  const open = bucketOpen(interval, time);
  return open === time ? open : nextBucketOpen(interval, open);
}

/** Open time of the bucket `steps` buckets before the one opening at `open`. */
function stepBack(interval: KlineInterval, open: number, steps: number): number {
  for (let i = 0; i < steps; i++) open = bucketOpen(interval, open - 1);
  return open;
}

/**
 * A candle for every bucket of the window, as Binance answers: a bucket without a stored candle is
 * flat at the previous close with no volume (`flatCandle`). Nothing is invented before the first
 * real candle (no stored candle before the window and none in it: an empty answer) nor after
 * `window.endTime`. `stored` are the series' candles of `interval` up to `endTime`, oldest first, as
 * the repository pages them (with startTime: the first `limit` from it; else the last `limit`).
 */
export function fillCandleGaps(
  stored: readonly Candle[],
  interval: KlineInterval,
  window: CandleWindow,
): Candle[] {
  const { startTime, endTime, limit } = window;
  if (limit <= 0) return [];
  const last = bucketOpen(interval, endTime);
  const first =
    startTime === undefined ? stepBack(interval, last, limit - 1) : firstBucketAtOrAfter(interval, startTime);
  let carry: Money | undefined =
    window.before && window.before.openTime < first ? window.before.close : undefined;
  let i = 0;
  for (; i < stored.length && stored[i]!.openTime < first; i++) carry = stored[i]!.close;
  let open = first;
  if (carry === undefined) {
    if (i === stored.length) return [];
    open = stored[i]!.openTime;
  }
  const out: Candle[] = [];
  while (open <= last && out.length < limit) {
    const s = stored[i];
    if (s && s.openTime < open) {
      i++; // a duplicate or misaligned row: the bucket already has its candle
      continue;
    }
    if (s && s.openTime === open) {
      out.push(s);
      carry = s.close;
      i++;
    } else {
      out.push(flatCandle(interval, open, carry!));
    }
    open = nextBucketOpen(interval, open);
  }
  return out;
}
