import { Money } from '../money/money';
import { fillCandleGaps, firstBucketAtOrAfter } from './candle-gaps';
import { applyTrade, type Candle, klineRow } from './candles';
import type { KlineInterval } from './kline-intervals';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2026, 2, 16); // Monday 2026-03-16 00:00 UTC

/** A traded candle of the bucket holding `time`: one trade at `price`. */
const traded = (interval: KlineInterval, time: number, price: string, qty = '1'): Candle =>
  applyTrade(undefined, interval, { time, price: new Money(price), qty: new Money(qty), takerSide: 'BUY' });

/** [openTime, close, volume, count] of each candle: enough to tell real from flat ones. */
const brief = (cs: Candle[]) => cs.map((c) => [c.openTime, c.close.toFixed(), c.volume.toFixed(), c.count]);

describe('fillCandleGaps', () => {
  const a = traded('1m', T0 + 10, '100');
  const b = traded('1m', T0 + 3 * MIN + 5, '103');
  const c = traded('1m', T0 + 4 * MIN + 5, '99');

  it('fills a bucket without trades flat at the previous close, with no volume', () => {
    const out = fillCandleGaps([a, b], '1m', { startTime: T0, endTime: T0 + 3 * MIN, limit: 500 });
    expect(brief(out)).toEqual([
      [T0, '100', '1', 1],
      [T0 + MIN, '100', '0', 0],
      [T0 + 2 * MIN, '100', '0', 0],
      [T0 + 3 * MIN, '103', '1', 1],
    ]);
    expect(klineRow(out[1]!)).toEqual([
      T0 + MIN,
      '100',
      '100',
      '100',
      '100',
      '0',
      T0 + 2 * MIN - 1,
      '0',
      0,
      '0',
      '0',
      '0',
    ]);
    expect(out[0]).toBe(a); // stored candles pass through unchanged
  });

  it('carries the candle before the window into its leading buckets', () => {
    const before = traded('1m', T0 - 5 * MIN, '90');
    const out = fillCandleGaps([b], '1m', { startTime: T0 + MIN, endTime: T0 + 3 * MIN, limit: 500, before });
    expect(brief(out)).toEqual([
      [T0 + MIN, '90', '0', 0],
      [T0 + 2 * MIN, '90', '0', 0],
      [T0 + 3 * MIN, '103', '1', 1],
    ]);
  });

  it('invents nothing before the first real candle', () => {
    const out = fillCandleGaps([b, c], '1m', { startTime: T0, endTime: T0 + 4 * MIN, limit: 500 });
    expect(brief(out).map((r) => r[0])).toEqual([T0 + 3 * MIN, T0 + 4 * MIN]);
    expect(fillCandleGaps([], '1m', { startTime: T0, endTime: T0 + 9 * MIN, limit: 500 })).toEqual([]);
    expect(fillCandleGaps([], '1m', { endTime: T0 + 9 * MIN, limit: 500 })).toEqual([]);
  });

  it('fills up to the bucket holding endTime (now), never after it', () => {
    const out = fillCandleGaps([a], '1m', { startTime: T0, endTime: T0 + 2 * MIN + 30_000, limit: 500 });
    expect(brief(out)).toEqual([
      [T0, '100', '1', 1],
      [T0 + MIN, '100', '0', 0],
      [T0 + 2 * MIN, '100', '0', 0],
    ]);
  });

  it('answers only flat candles for a window after the last trade', () => {
    const out = fillCandleGaps([], '1h', {
      startTime: T0 + 2 * HOUR,
      endTime: T0 + 3 * HOUR,
      limit: 500,
      before: traded('1h', T0, '7'),
    });
    expect(brief(out)).toEqual([
      [T0 + 2 * HOUR, '7', '0', 0],
      [T0 + 3 * HOUR, '7', '0', 0],
    ]);
  });

  it('starts at the first bucket opening at or after startTime (Binance filters by open time)', () => {
    expect(firstBucketAtOrAfter('1h', T0 + 30 * MIN)).toBe(T0 + HOUR);
    expect(firstBucketAtOrAfter('1h', T0 + HOUR)).toBe(T0 + HOUR);
    const out = fillCandleGaps([a, b], '1m', {
      startTime: T0 + 1,
      endTime: T0 + 3 * MIN,
      limit: 500,
      before: a,
    });
    expect(brief(out).map((r) => r[0])).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
  });

  it('with startTime keeps the first `limit` buckets', () => {
    const out = fillCandleGaps([a, b, c], '1m', { startTime: T0, endTime: T0 + 9 * MIN, limit: 2 });
    expect(brief(out)).toEqual([
      [T0, '100', '1', 1],
      [T0 + MIN, '100', '0', 0],
    ]);
  });

  it('without startTime answers the last `limit` buckets up to endTime, carrying an older stored close', () => {
    const out = fillCandleGaps([a, b], '1m', { endTime: T0 + 6 * MIN, limit: 3 });
    expect(brief(out)).toEqual([
      [T0 + 4 * MIN, '103', '0', 0],
      [T0 + 5 * MIN, '103', '0', 0],
      [T0 + 6 * MIN, '103', '0', 0],
    ]);
    expect(brief(fillCandleGaps([a, b], '1m', { endTime: T0 + 4 * MIN, limit: 500 }))).toEqual([
      [T0, '100', '1', 1],
      [T0 + MIN, '100', '0', 0],
      [T0 + 2 * MIN, '100', '0', 0],
      [T0 + 3 * MIN, '103', '1', 1],
      [T0 + 4 * MIN, '103', '0', 0],
    ]);
  });

  it('answers nothing for a window that closes before it opens, or a limit of 0', () => {
    expect(
      fillCandleGaps([a], '1m', { startTime: T0 + 5 * MIN, endTime: T0 + 4 * MIN, limit: 10, before: a }),
    ).toEqual([]);
    expect(fillCandleGaps([a], '1m', { endTime: T0 + 4 * MIN, limit: 0 })).toEqual([]);
  });

  it('walks calendar months for 1M and Mondays for 1w', () => {
    const jan = traded('1M', Date.UTC(2026, 0, 20), '10');
    const months = fillCandleGaps([jan], '1M', { endTime: Date.UTC(2026, 3, 2), limit: 500 });
    expect(months.map((m) => new Date(m.openTime).toISOString().slice(0, 10))).toEqual([
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
      '2026-04-01',
    ]);
    expect(months[1]!.closeTime).toBe(Date.UTC(2026, 2, 1) - 1); // February: 28 days
    const week = traded('1w', T0 + 3 * 24 * HOUR, '5');
    const weeks = fillCandleGaps([week], '1w', { startTime: T0, endTime: T0 + 15 * 24 * HOUR, limit: 500 });
    expect(weeks.map((w) => new Date(w.openTime).getUTCDay())).toEqual([1, 1, 1]);
    expect(brief(weeks).map((r) => r[1])).toEqual(['5', '5', '5']);
  });

  it('steps back across month lengths when paging the last buckets of 1M', () => {
    const out = fillCandleGaps([traded('1M', Date.UTC(2025, 10, 3), '1')], '1M', {
      endTime: Date.UTC(2026, 2, 31, 23),
      limit: 2,
    });
    expect(out.map((m) => m.openTime)).toEqual([Date.UTC(2026, 1, 1), Date.UTC(2026, 2, 1)]);
  });
});
