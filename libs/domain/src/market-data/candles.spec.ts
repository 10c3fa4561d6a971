import fc from 'fast-check';
import { Money } from '../money/money';
import {
  applySample,
  applyTrade,
  type Candle,
  CandleSeries,
  type CandleTrade,
  flatCandle,
  klineRow,
  type TradeSide,
} from './candles';
import { KLINE_INTERVALS } from './kline-intervals';

const m = (v: string) => new Money(v);
const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 16); // Monday 2026-03-16 00:00 UTC
const trade = (time: number, price: string, qty: string, takerSide: TradeSide = 'BUY'): CandleTrade => ({
  time,
  price: m(price),
  qty: m(qty),
  takerSide,
});
/** Decimals as strings, for readable assertions. */
const plain = (c: Candle) => klineRow(c);

describe('applyTrade', () => {
  it('opens a candle at the first trade and folds the next ones in', () => {
    let c = applyTrade(undefined, '1m', trade(T0 + 10, '100', '2', 'BUY'));
    c = applyTrade(c, '1m', trade(T0 + 20, '103.5', '1', 'SELL'));
    c = applyTrade(c, '1m', trade(T0 + 30, '99.25', '0.5', 'BUY'));
    c = applyTrade(c, '1m', trade(T0 + MIN - 1, '101', '0.1', 'SELL'));
    expect(plain(c)).toEqual([
      T0,
      '100',
      '103.5',
      '99.25',
      '101',
      '3.6',
      T0 + MIN - 1,
      '363.225', // 200 + 103.5 + 49.625 + 10.1
      4,
      '2.5',
      '249.625', // taker buys: 200 + 49.625
      '0',
    ]);
  });

  it('starts a new candle for a trade of a later bucket, without touching the old one', () => {
    const first = applyTrade(undefined, '5m', trade(T0, '100', '1'));
    const next = applyTrade(first, '5m', trade(T0 + 5 * MIN, '90', '3', 'SELL'));
    expect(next.openTime).toBe(T0 + 5 * MIN);
    expect(next.closeTime).toBe(T0 + 10 * MIN - 1);
    expect(plain(next).slice(1, 6)).toEqual(['90', '90', '90', '90', '3']);
    expect(next.takerBuyVolume.isZero()).toBe(true);
    expect(first.count).toBe(1); // immutable update
  });

  it('returns the candle itself for a trade of an earlier bucket (the caller merges it elsewhere)', () => {
    const c = applyTrade(undefined, '1h', trade(T0 + 60 * MIN, '100', '1'));
    expect(applyTrade(c, '1h', trade(T0 + 60 * MIN - 1, '500', '1'))).toBe(c);
    // Folded into its own bucket's candle instead, it counts there.
    const own = applyTrade(flatCandle('1h', T0, m('99')), '1h', trade(T0 + 60 * MIN - 1, '500', '1'));
    expect(plain(own).slice(0, 5)).toEqual([T0, '500', '500', '500', '500']);
  });

  it('closes at the last trade applied (log order), even at the same millisecond', () => {
    let c = applyTrade(undefined, '1m', trade(T0, '100', '1'));
    c = applyTrade(c, '1m', trade(T0, '101', '1'));
    c = applyTrade(c, '1m', trade(T0, '100.5', '1'));
    expect(plain(c).slice(1, 5)).toEqual(['100', '101', '100', '100.5']);
  });

  it('uses calendar buckets for 1w and 1M', () => {
    const sunday = Date.UTC(2026, 2, 22, 23, 59, 59, 999);
    const w = applyTrade(undefined, '1w', trade(sunday, '1', '1'));
    expect([w.openTime, w.closeTime]).toEqual([T0, sunday]);
    const mo = applyTrade(undefined, '1M', trade(Date.UTC(2028, 1, 29, 12), '1', '1'));
    expect([mo.openTime, mo.closeTime]).toEqual([Date.UTC(2028, 1, 1), Date.UTC(2028, 2, 1) - 1]);
  });
});

describe('applySample', () => {
  it('keeps OHLC of the samples, counts samples and no volume (negative premiums too)', () => {
    let c = applySample(undefined, '1m', T0 + 1, m('-0.0001'));
    c = applySample(c, '1m', T0 + 2, m('0.0003'));
    c = applySample(c, '1m', T0 + 3, m('-0.0004'));
    c = applySample(c, '1m', T0 + 4, m('0.0002'));
    expect(plain(c)).toEqual([
      T0,
      '-0.0001',
      '0.0003',
      '-0.0004',
      '0.0002',
      '0',
      T0 + MIN - 1,
      '0',
      4,
      '0',
      '0',
      '0',
    ]);
    expect(applySample(c, '1m', T0 - 1, m('9'))).toBe(c);
  });

  it('treats a flat candle (a stored gap filler) as empty: its first input opens it', () => {
    const c = applySample(flatCandle('1m', T0, m('50')), '1m', T0 + 5, m('52'));
    expect(plain(c).slice(1, 5)).toEqual(['52', '52', '52', '52']);
    expect(c.count).toBe(1);
  });
});

describe('flatCandle', () => {
  it('is the price as OHLC with no volume, for buckets without trades', () => {
    expect(plain(flatCandle('1d', T0 + 5, m('42.5')))).toEqual([
      T0,
      '42.5',
      '42.5',
      '42.5',
      '42.5',
      '0',
      T0 + 24 * 60 * MIN - 1,
      '0',
      0,
      '0',
      '0',
      '0',
    ]);
  });
});

describe('klineRow', () => {
  it('renders Binance strings with the given decimals (rounded down, as Money)', () => {
    const c = applyTrade(undefined, '1m', trade(T0, '100.5', '0.333'));
    expect(klineRow(c, { priceDecimals: 2, qtyDecimals: 3, quoteDecimals: 4 })).toEqual([
      T0,
      '100.50',
      '100.50',
      '100.50',
      '100.50',
      '0.333',
      T0 + MIN - 1,
      '33.4665',
      1,
      '0.333',
      '33.4665',
      '0',
    ]);
    expect(klineRow(c, { quoteDecimals: 2 })[7]).toBe('33.46');
  });
});

describe('CandleSeries', () => {
  it('applies a batch of trades as it applies them one by one, across minutes, buckets and a flat candle', () => {
    // Times step by 0 to 3 minutes (same minute, next, a skipped one), over hour and day boundaries.
    const step = fc.record({
      gap: fc.constantFrom(0, 1, 7_000, MIN - 1, MIN, 2 * MIN + 5, 59 * MIN, 23 * 60 * MIN),
      price: fc.integer({ min: 1, max: 50 }).map((p) => `${p}.5`),
      qty: fc.integer({ min: 1, max: 9 }).map((q) => `0.00${q}`),
      side: fc.constantFrom<TradeSide>('BUY', 'SELL'),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.integer({ min: 1, max: 39 }), (steps, cut) => {
        let time = T0 + 45 * MIN + 30_000;
        const trades = steps.map((x) => trade((time += x.gap), x.price, x.qty, x.side));
        // A stored gap filler (count 0) as the current 1m candle: the first trade opens it anew.
        const filler = { interval: '1m' as const, candle: flatCandle('1m', T0 + 45 * MIN, m('7')) };
        const one = new CandleSeries([filler]);
        const batched = new CandleSeries([filler]);
        const seen = new Map<string, string>();
        const last = (updates: ReturnType<CandleSeries['applyTrades']>, into: Map<string, string>) => {
          for (const u of updates)
            into.set(`${u.interval}/${u.candle.openTime}`, JSON.stringify(plain(u.candle)));
        };
        for (const t of trades) last(one.applyTrade(t), seen);
        const got = new Map<string, string>();
        // Two batches, cut anywhere: a minute may span them.
        last(batched.applyTrades(trades.slice(0, cut)), got);
        last(batched.applyTrades(trades.slice(cut)), got);
        expect(got).toEqual(seen);
        for (const interval of KLINE_INTERVALS) {
          const a = one.candle(interval);
          const b = batched.candle(interval);
          expect(b && plain(b)).toEqual(a && plain(a));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('updates all 15 intervals on the first trade and returns each changed candle', () => {
    const s = new CandleSeries();
    const changed = s.applyTrade(trade(T0 + 1, '100', '1'));
    expect(changed.map((u) => u.interval)).toEqual([...KLINE_INTERVALS]);
    expect(s.candle('1w')?.openTime).toBe(T0);
    expect(s.candle('1M')?.openTime).toBe(Date.UTC(2026, 2, 1));
  });

  it('returns only the candles a late input could change', () => {
    const s = new CandleSeries();
    s.applyTrade(trade(T0 + 10 * MIN, '100', '1'));
    // 9:59.999 after T0 is before the current 1m and 5m candles (opened at 10:00), inside the 3m one
    // (9:00-11:59) and every longer one.
    const changed = s.applyTrade(trade(T0 + 10 * MIN - 1, '120', '1'));
    expect(changed.map((u) => u.interval)).toEqual(KLINE_INTERVALS.filter((i) => !['1m', '5m'].includes(i)));
    expect(s.candle('1m')?.high.toFixed()).toBe('100');
    expect(s.candle('15m')?.high.toFixed()).toBe('120');
  });

  it('resumes from stored candles after a restart', () => {
    const stored = applyTrade(undefined, '1h', trade(T0, '100', '2'));
    const s = new CandleSeries([{ interval: '1h', candle: stored }]);
    const [hour] = s.applySample(T0 + 1, m('105')).filter((u) => u.interval === '1h');
    expect(plain(hour.candle).slice(1, 9)).toEqual([
      '100',
      '105',
      '100',
      '105',
      '2',
      T0 + 60 * MIN - 1,
      '200',
      2,
    ]);
    expect(s.candle('1m')?.count).toBe(1);
  });

  it('serves a price series the same way', () => {
    const s = new CandleSeries();
    s.applySample(T0, m('10'));
    const changed = s.applySample(T0 + MIN, m('11'));
    expect(changed).toHaveLength(15);
    expect(s.candle('1m')?.openTime).toBe(T0 + MIN);
    expect([s.candle('1d')?.count, s.candle('1d')?.close.toFixed()]).toEqual([2, '11']);
  });
});
