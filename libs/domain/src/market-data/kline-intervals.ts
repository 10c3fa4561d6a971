const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** 1970-01-01 was a Thursday: weeks open 4 days after the epoch, on Monday 00:00 UTC. */
const MONDAY_OFFSET = 4 * DAY;

/** Binance's kline intervals, each a true bucket of its own (3m is never served from 5m). */
export const KLINE_INTERVALS = [
  '1m',
  '3m',
  '5m',
  '15m',
  '30m',
  '1h',
  '2h',
  '4h',
  '6h',
  '8h',
  '12h',
  '1d',
  '3d',
  '1w',
  '1M',
] as const;
export type KlineInterval = (typeof KLINE_INTERVALS)[number];

/** The periods of Binance's futures-data endpoints (open-interest history, ratios, taker volume). */
export const STATS_PERIODS = ['5m', '15m', '30m', '1h', '2h', '4h', '6h', '12h', '1d'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

/** Length of every interval of fixed length; 1w and 1M are aligned differently (see bucketOpen). */
const FIXED_MS: Record<Exclude<KlineInterval, '1w' | '1M'>, number> = {
  '1m': MINUTE,
  '3m': 3 * MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': HOUR,
  '2h': 2 * HOUR,
  '4h': 4 * HOUR,
  '6h': 6 * HOUR,
  '8h': 8 * HOUR,
  '12h': 12 * HOUR,
  '1d': DAY,
  '3d': 3 * DAY,
};

const intervalSet: ReadonlySet<string> = new Set(KLINE_INTERVALS);
const periodSet: ReadonlySet<string> = new Set(STATS_PERIODS);

/** The interval named exactly `s` (case-sensitive, as Binance: `1m` is a minute, `1M` a month). */
export function parseKlineInterval(s: unknown): KlineInterval | undefined {
  return typeof s === 'string' && intervalSet.has(s) ? (s as KlineInterval) : undefined;
}

/** The futures-data period named exactly `s`, or undefined. */
export function parseStatsPeriod(s: unknown): StatsPeriod | undefined {
  return typeof s === 'string' && periodSet.has(s) ? (s as StatsPeriod) : undefined;
}

/**
 * Open time (ms) of the bucket holding `timeMs`. Minute to 3d buckets are aligned to the Unix epoch
 * (as Binance aligns 3d), 1w opens on Monday 00:00 UTC, 1M on the first of a calendar month UTC.
 */
export function bucketOpen(interval: KlineInterval, timeMs: number): number {
  if (interval === '1M') {
    const d = new Date(timeMs);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  if (interval === '1w') return Math.floor((timeMs - MONDAY_OFFSET) / WEEK) * WEEK + MONDAY_OFFSET;
  const len = FIXED_MS[interval];
  return Math.floor(timeMs / len) * len;
}

/** Open time of the bucket after the one holding `timeMs` (any time within the bucket works). */
export function nextBucketOpen(interval: KlineInterval, timeMs: number): number {
  if (interval === '1M') {
    const d = new Date(timeMs);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return bucketOpen(interval, timeMs) + (interval === '1w' ? WEEK : FIXED_MS[interval]);
}

/** Binance's closeTime: the last millisecond of the bucket holding `openMs` (next open − 1). */
export function bucketClose(interval: KlineInterval, openMs: number): number {
  return nextBucketOpen(interval, openMs) - 1;
}
