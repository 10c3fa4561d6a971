import fc from 'fast-check';
import {
  bucketClose,
  bucketOpen,
  KLINE_INTERVALS,
  type KlineInterval,
  nextBucketOpen,
  parseKlineInterval,
  parseStatsPeriod,
  STATS_PERIODS,
} from './kline-intervals';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const utc = (iso: string) => Date.parse(iso);

describe('parseKlineInterval / parseStatsPeriod', () => {
  it('knows the 15 Binance intervals, case-sensitively', () => {
    expect(KLINE_INTERVALS).toHaveLength(15);
    for (const i of KLINE_INTERVALS) expect(parseKlineInterval(i)).toBe(i);
    expect(parseKlineInterval('1m')).toBe('1m');
    expect(parseKlineInterval('1M')).toBe('1M');
    for (const bad of ['1H', '1D', '1W', '2m', '10m', '', ' 1m', '1m ', 'm', undefined, 1, null]) {
      expect(parseKlineInterval(bad)).toBeUndefined();
    }
  });

  it('knows the 9 futures-data periods and nothing else', () => {
    expect(STATS_PERIODS.map((p) => parseStatsPeriod(p))).toEqual([...STATS_PERIODS]);
    for (const bad of ['1m', '3m', '8h', '3d', '1w', '1M', '5M', undefined]) {
      expect(parseStatsPeriod(bad)).toBeUndefined();
    }
  });
});

/** For every fixed interval: its length, a boundary in 2026, and that boundary's previous bucket. */
const FIXED: [KlineInterval, number][] = [
  ['1m', MIN],
  ['3m', 3 * MIN],
  ['5m', 5 * MIN],
  ['15m', 15 * MIN],
  ['30m', 30 * MIN],
  ['1h', HOUR],
  ['2h', 2 * HOUR],
  ['4h', 4 * HOUR],
  ['6h', 6 * HOUR],
  ['8h', 8 * HOUR],
  ['12h', 12 * HOUR],
  ['1d', DAY],
  ['3d', 3 * DAY],
];

describe('bucket arithmetic of fixed intervals', () => {
  it.each(FIXED)('%s: exact boundary, 1 ms before, close and next open', (interval, len) => {
    // A multiple of every fixed length (3d included): 3 * 1000 days after the epoch.
    const boundary = 3000 * DAY;
    expect(bucketOpen(interval, boundary)).toBe(boundary);
    expect(bucketOpen(interval, boundary - 1)).toBe(boundary - len);
    expect(bucketOpen(interval, boundary + len - 1)).toBe(boundary);
    expect(bucketClose(interval, boundary)).toBe(boundary + len - 1);
    expect(bucketClose(interval, boundary - len)).toBe(boundary - 1);
    expect(nextBucketOpen(interval, boundary)).toBe(boundary + len);
    expect(nextBucketOpen(interval, boundary - 1)).toBe(boundary);
  });

  it('aligns minute to hour buckets on the clock', () => {
    const t = utc('2026-03-14T13:47:31.250Z');
    expect(bucketOpen('3m', t)).toBe(utc('2026-03-14T13:45:00Z'));
    expect(bucketOpen('15m', t)).toBe(utc('2026-03-14T13:45:00Z'));
    expect(bucketOpen('30m', t)).toBe(utc('2026-03-14T13:30:00Z'));
    expect(bucketOpen('2h', t)).toBe(utc('2026-03-14T12:00:00Z'));
    expect(bucketOpen('6h', t)).toBe(utc('2026-03-14T12:00:00Z'));
    expect(bucketOpen('8h', t)).toBe(utc('2026-03-14T08:00:00Z'));
    expect(bucketOpen('12h', t)).toBe(utc('2026-03-14T12:00:00Z'));
    expect(bucketOpen('1d', t)).toBe(utc('2026-03-14T00:00:00Z'));
    expect(bucketClose('1d', utc('2026-03-14T00:00:00Z'))).toBe(utc('2026-03-14T23:59:59.999Z'));
  });

  it('aligns 3d to the Unix epoch, as Binance does', () => {
    expect(bucketOpen('3d', 0)).toBe(0);
    expect(bucketOpen('3d', 3 * DAY - 1)).toBe(0);
    expect(bucketOpen('3d', 3 * DAY)).toBe(3 * DAY);
    // 2026-01-01 is day 20454 after the epoch; 20454 = 3 * 6818, so a 3d bucket opens there.
    expect(bucketOpen('3d', utc('2026-01-02T10:00:00Z'))).toBe(utc('2026-01-01T00:00:00Z'));
    expect(bucketOpen('3d', utc('2026-01-04T00:00:00Z'))).toBe(utc('2026-01-04T00:00:00Z'));
  });
});

describe('1w buckets', () => {
  it('open on Monday 00:00 UTC', () => {
    const monday = utc('2026-03-16T00:00:00Z'); // a Monday
    expect(new Date(monday).getUTCDay()).toBe(1);
    expect(bucketOpen('1w', monday)).toBe(monday);
    expect(bucketOpen('1w', monday - 1)).toBe(utc('2026-03-09T00:00:00Z'));
    expect(bucketOpen('1w', utc('2026-03-22T23:59:59.999Z'))).toBe(monday); // the Sunday after
    expect(bucketClose('1w', monday)).toBe(utc('2026-03-22T23:59:59.999Z'));
    expect(nextBucketOpen('1w', monday)).toBe(utc('2026-03-23T00:00:00Z'));
  });

  it('handles the epoch week (1970-01-01 was a Thursday)', () => {
    expect(bucketOpen('1w', 0)).toBe(utc('1969-12-29T00:00:00Z'));
    expect(bucketOpen('1w', utc('1970-01-05T00:00:00Z'))).toBe(utc('1970-01-05T00:00:00Z'));
  });
});

describe('1M buckets', () => {
  it('open on the first of the calendar month and close on its last millisecond', () => {
    const t = utc('2026-05-17T08:00:00Z');
    expect(bucketOpen('1M', t)).toBe(utc('2026-05-01T00:00:00Z'));
    expect(bucketClose('1M', utc('2026-05-01T00:00:00Z'))).toBe(utc('2026-05-31T23:59:59.999Z'));
    expect(bucketOpen('1M', utc('2026-05-01T00:00:00Z'))).toBe(utc('2026-05-01T00:00:00Z'));
    expect(bucketOpen('1M', utc('2026-05-01T00:00:00Z') - 1)).toBe(utc('2026-04-01T00:00:00Z'));
    expect(bucketClose('1M', utc('2026-04-01T00:00:00Z'))).toBe(utc('2026-04-30T23:59:59.999Z'));
  });

  it('has 29 days in a leap February and 28 otherwise', () => {
    expect(bucketClose('1M', utc('2028-02-10T00:00:00Z'))).toBe(utc('2028-02-29T23:59:59.999Z'));
    expect(nextBucketOpen('1M', utc('2028-02-29T12:00:00Z'))).toBe(utc('2028-03-01T00:00:00Z'));
    expect(bucketClose('1M', utc('2026-02-10T00:00:00Z'))).toBe(utc('2026-02-28T23:59:59.999Z'));
    expect(bucketOpen('1M', utc('2026-03-01T00:00:00Z') - 1)).toBe(utc('2026-02-01T00:00:00Z'));
    expect(bucketClose('1M', utc('2100-02-01T00:00:00Z'))).toBe(utc('2100-02-28T23:59:59.999Z'));
    expect(bucketClose('1M', utc('2000-02-01T00:00:00Z'))).toBe(utc('2000-02-29T23:59:59.999Z'));
  });

  it('rolls December into January of the next year', () => {
    const dec = utc('2026-12-31T23:59:59.999Z');
    expect(bucketOpen('1M', dec)).toBe(utc('2026-12-01T00:00:00Z'));
    expect(bucketClose('1M', dec)).toBe(dec);
    expect(nextBucketOpen('1M', dec)).toBe(utc('2027-01-01T00:00:00Z'));
    expect(bucketOpen('1M', dec + 1)).toBe(utc('2027-01-01T00:00:00Z'));
  });
});

describe('bucket properties (every interval)', () => {
  // 1900 to 2200, so negative times and far leap years are covered.
  const time = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) });
  const interval = fc.constantFrom(...KLINE_INTERVALS);

  it('open <= t <= close, and the bucket after close is the next one', () => {
    fc.assert(
      fc.property(interval, time, (i, t) => {
        const open = bucketOpen(i, t);
        const close = bucketClose(i, open);
        expect(open).toBeLessThanOrEqual(t);
        expect(t).toBeLessThanOrEqual(close);
        expect(bucketClose(i, t)).toBe(close);
        expect(bucketOpen(i, close)).toBe(open);
        expect(bucketOpen(i, close + 1)).toBe(close + 1);
        expect(nextBucketOpen(i, t)).toBe(close + 1);
        expect(bucketOpen(i, open - 1)).toBeLessThan(open);
        expect(bucketClose(i, open - 1)).toBe(open - 1);
      }),
    );
  });

  it('buckets tile time: consecutive buckets from any start meet without gap or overlap', () => {
    fc.assert(
      fc.property(interval, time, fc.integer({ min: 1, max: 40 }), (i, t, n) => {
        let open = bucketOpen(i, t);
        for (let k = 0; k < n; k += 1) {
          const next = nextBucketOpen(i, open);
          expect(next).toBeGreaterThan(open);
          expect(bucketOpen(i, next - 1)).toBe(open);
          expect(bucketOpen(i, next)).toBe(next);
          open = next;
        }
      }),
    );
  });
});
