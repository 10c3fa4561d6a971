import type { Money } from '../money/money';
import { bucketOpen, type StatsPeriod } from './kline-intervals';
import { statDecimal } from './ratios';

/** One period of open-interest history: the last sample taken in the period. */
export interface OpenInterestPoint {
  /** The period's open time (as a kline's openTime). */
  timestamp: number;
  /** Time of the sample kept: a later sample of the same period replaces it. */
  time: number;
  /** Open interest in base units. */
  sumOpenInterest: Money;
  /** sumOpenInterest × the mark price at that sample. */
  sumOpenInterestValue: Money;
}

/**
 * The point of `time`'s period after one open-interest sample: a new point when `point` is undefined
 * or of an earlier period, the sample when it is not older than `point.time` (last sample wins),
 * and `point` itself when the sample is older than it (a late copy changes nothing).
 */
export function applyOpenInterest(
  point: OpenInterestPoint | undefined,
  period: StatsPeriod,
  time: number,
  oiBase: Money,
  markPrice: Money,
): OpenInterestPoint {
  if (point && time < point.time) return point;
  return {
    timestamp: bucketOpen(period, time),
    time,
    sumOpenInterest: oiBase,
    sumOpenInterestValue: oiBase.times(markPrice),
  };
}

export interface OpenInterestRow {
  sumOpenInterest: string;
  sumOpenInterestValue: string;
  timestamp: string;
}

/** Binance's wire row (the caller adds `symbol`): 8 decimals unless told, timestamp as a string. */
export function openInterestRow(p: OpenInterestPoint, decimals = 8): OpenInterestRow {
  return {
    sumOpenInterest: statDecimal(p.sumOpenInterest, decimals),
    sumOpenInterestValue: statDecimal(p.sumOpenInterestValue, decimals),
    timestamp: String(p.timestamp),
  };
}
