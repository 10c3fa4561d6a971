import { bucketOpen, type StatsPeriod } from '@perp/domain';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import {
  type MarketCandleEntity,
  MarketDataRepository,
  type MarketStatisticEntity,
  PERSISTENCE_DATA_SOURCE,
} from '@perp/persistence';
import { http, type HttpResponse } from '@perp/testing';
import type { DataSource } from 'typeorm';

/** Query parameters as sent (numbers in decimal). */
const queryString = (q: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
// Two days before today's open (UTC): every period's bucket opens there, and the window tests
// below lie wholly in the past, so the clock cannot move their answers.
const T0 = bucketOpen('1d', Date.now()) - 2 * DAY;
const at = (minutes: number) => T0 + minutes * MIN;
const ts = (minutes: number) => String(at(minutes));

const stat = (period: string, minutes: number, f: Partial<MarketStatisticEntity>): MarketStatisticEntity => ({
  symbol: 'BTCUSDT',
  period,
  time: at(minutes),
  openInterest: '1.5',
  openInterestValue: '97500.15',
  longAccounts: '0.5',
  shortAccounts: '0.5',
  topLongAccounts: '1',
  topShortAccounts: '0',
  topLongPositions: '1',
  topShortPositions: '0',
  ...f,
});

const candle = (minutes: number, volume: string, takerBuy: string): MarketCandleEntity => ({
  symbol: 'BTCUSDT',
  series: 'last',
  interval: '5m',
  openTime: at(minutes),
  closeTime: at(minutes + 5) - 1,
  open: '65000',
  high: '65000',
  low: '65000',
  close: '65000',
  volume,
  quoteVolume: '0',
  count: 1,
  takerBuyVolume: takerBuy,
  takerBuyQuoteVolume: '0',
});

const PATHS = [
  'openInterestHist',
  'takerlongshortRatio',
  'topLongShortAccountRatio',
  'topLongShortPositionRatio',
  'globalLongShortAccountRatio',
] as const;

/** The futures-data series over HTTP, on projections seeded through the repository. */
describe('FAPI /futures/data (embedded exchange, seeded projections)', () => {
  let ex: InProcessExchange;
  const get = (path: string, query: Record<string, string | number> = {}, ip?: string) =>
    http(
      `${ex.url}/futures/data/${path}?${queryString(query)}`,
      ip ? { headers: { 'x-forwarded-for': ip } } : {},
    );
  const ok = async (r: Promise<HttpResponse>) => {
    const res = await r;
    expect([res.status, res.text.slice(0, 200)]).toEqual([200, expect.any(String)]);
    return res.body as Record<string, string>[];
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({ TRUSTED_PROXIES: '127.0.0.1' });
    const md = new MarketDataRepository(ex.app.get<DataSource>(PERSISTENCE_DATA_SOURCE).manager);
    // 5m: trades in the buckets at 0, 10 and 25 minutes; 1h: at 0 and 120 minutes.
    await md.upsertStatistics([
      stat('5m', 0, {}),
      stat('5m', 10, {
        openInterest: '2',
        openInterestValue: '130000.5',
        longAccounts: '0.6666666667',
        shortAccounts: '0.3333333333',
        topLongAccounts: '0',
        topShortAccounts: '1',
        topLongPositions: '0.25',
        topShortPositions: '0.75',
      }),
      stat('5m', 25, {
        openInterest: '0.5',
        openInterestValue: '32600',
        longAccounts: '1',
        shortAccounts: '0',
      }),
      stat('1h', 0, {}),
      stat('1h', 120, { openInterest: '0.5', openInterestValue: '32600' }),
      { ...stat('5m', 0, {}), symbol: 'ETHUSDT', openInterest: '9' },
    ]);
    await md.upsertCandles([candle(0, '3', '1'), candle(10, '2', '2')]);
  });
  afterAll(() => ex?.close());

  it('openInterestHist: one row per bucket, quiet buckets carry the last figures', async () => {
    const rows = await ok(get('openInterestHist', { symbol: 'BTCUSDT', startTime: at(0), endTime: at(30) }));
    const total = (oi: string, value: string, minutes: number) => ({
      symbol: 'BTCUSDT',
      sumOpenInterest: oi,
      sumOpenInterestValue: value,
      timestamp: ts(minutes),
    });
    expect(rows).toEqual([
      total('3.00000000', '195000.30000000', 0),
      total('3.00000000', '195000.30000000', 5),
      total('4.00000000', '260001.00000000', 10),
      total('4.00000000', '260001.00000000', 15),
      total('4.00000000', '260001.00000000', 20),
      total('1.00000000', '65200.00000000', 25),
      total('1.00000000', '65200.00000000', 30),
    ]);
  });

  it('global, top-account and top-position ratios over the same buckets', async () => {
    const q = { symbol: 'btc-usd', period: '5m', startTime: at(5), endTime: at(10) };
    expect(await ok(get('globalLongShortAccountRatio', q))).toEqual([
      {
        symbol: 'BTCUSDT',
        longShortRatio: '1.0000',
        longAccount: '0.5000',
        shortAccount: '0.5000',
        timestamp: ts(5),
      },
      {
        symbol: 'BTCUSDT',
        longShortRatio: '2.0000',
        longAccount: '0.6667',
        shortAccount: '0.3333',
        timestamp: ts(10),
      },
    ]);
    expect(await ok(get('topLongShortAccountRatio', q))).toEqual([
      {
        symbol: 'BTCUSDT',
        longShortRatio: '0.0000',
        longAccount: '1.0000',
        shortAccount: '0.0000',
        timestamp: ts(5),
      },
      {
        symbol: 'BTCUSDT',
        longShortRatio: '0.0000',
        longAccount: '0.0000',
        shortAccount: '1.0000',
        timestamp: ts(10),
      },
    ]);
    expect(await ok(get('topLongShortPositionRatio', q))).toEqual([
      {
        symbol: 'BTCUSDT',
        longShortRatio: '0.0000',
        longAccount: '1.0000',
        shortAccount: '0.0000',
        timestamp: ts(5),
      },
      {
        symbol: 'BTCUSDT',
        longShortRatio: '0.3333',
        longAccount: '0.2500',
        shortAccount: '0.7500',
        timestamp: ts(10),
      },
    ]);
  });

  it('takerlongshortRatio: by taker side; a bucket without trades is zero volume', async () => {
    expect(
      await ok(get('takerlongshortRatio', { symbol: 'BTCUSDT', startTime: at(0), endTime: at(15) })),
    ).toEqual([
      { buySellRatio: '0.5000', buyVol: '1.0000', sellVol: '2.0000', timestamp: ts(0) },
      { buySellRatio: '0.0000', buyVol: '0.0000', sellVol: '0.0000', timestamp: ts(5) },
      { buySellRatio: '0.0000', buyVol: '2.0000', sellVol: '0.0000', timestamp: ts(10) },
      { buySellRatio: '0.0000', buyVol: '0.0000', sellVol: '0.0000', timestamp: ts(15) },
    ]);
  });

  it('nothing is invented before the first stored point', async () => {
    for (const path of PATHS) {
      const rows = await ok(get(path, { symbol: 'BTCUSDT', startTime: at(-20), endTime: at(5) }));
      expect([path, rows.map((r) => r.timestamp)]).toEqual([path, [ts(0), ts(5)]]);
    }
    expect(await ok(get('openInterestHist', { symbol: 'SOLUSDT' }))).toEqual([]);
  });

  it('startTime pages forward, endTime alone answers the last `limit` buckets before it', async () => {
    const oi = (q: Record<string, string | number>) =>
      ok(get('openInterestHist', { symbol: 'BTCUSDT', ...q })).then((r) =>
        r.map((x) => [x.timestamp, x.sumOpenInterest]),
      );
    expect(await oi({ startTime: at(5), limit: 2 })).toEqual([
      [ts(5), '3.00000000'],
      [ts(10), '4.00000000'],
    ]);
    // The window opens after the point at 10 minutes: its first buckets carry it.
    expect(await oi({ endTime: at(22), limit: 2 })).toEqual([
      [ts(15), '4.00000000'],
      [ts(20), '4.00000000'],
    ]);
    // A period of its own: 1h rows come from the 1h figures.
    expect(await oi({ period: '1h', startTime: at(0), endTime: at(180) })).toEqual([
      [ts(0), '3.00000000'],
      [ts(60), '3.00000000'],
      [ts(120), '1.00000000'],
      [ts(180), '1.00000000'],
    ]);
    expect((await oi({ symbol: 'ETHUSDT', startTime: at(0), limit: 1 }))[0]).toEqual([ts(0), '18.00000000']);
  });

  it('without a window: the last `limit` buckets up to now, the current one included', async () => {
    const before = bucketOpen('5m', Date.now());
    const rows = await ok(get('openInterestHist', { symbol: 'BTCUSDT', limit: 3 }));
    const after = bucketOpen('5m', Date.now());
    const last = Number(rows[2]!.timestamp);
    expect([before, after]).toContain(last);
    expect(rows.map((r) => Number(r.timestamp))).toEqual([last - 10 * MIN, last - 5 * MIN, last]);
    expect(rows.map((r) => r.sumOpenInterest)).toEqual(['1.00000000', '1.00000000', '1.00000000']);
    // Default limit 30; the store reaches back two days (576+ buckets of 5m): the max is 500.
    expect(await ok(get('openInterestHist', { symbol: 'BTCUSDT' }))).toHaveLength(30);
    expect(await ok(get('takerlongshortRatio', { symbol: 'BTCUSDT', limit: 501 }))).toHaveLength(500);
  });

  it('never answers a bucket after now', async () => {
    const rows = await ok(
      get('topLongShortAccountRatio', { symbol: 'BTCUSDT', startTime: Date.now() - 7 * MIN, limit: 500 }),
    );
    const nowBucket = bucketOpen('5m', Date.now());
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeLessThanOrEqual(2);
    for (const r of rows) expect(Number(r.timestamp)).toBeLessThanOrEqual(nowBucket);
  });

  describe('parameters', () => {
    const invalidSymbol = { code: -1121, msg: 'Invalid symbol.' };
    const invalidPeriod = { code: -1120, msg: 'Invalid period.' };

    it.each(PATHS.flatMap((p) => ['DOGEUSDT', 'doge-usd', 'BTC'].map((s) => [p, s])))(
      '%s: symbol %p gives 400 -1121',
      async (path, symbol) => {
        const r = await get(path, { symbol });
        expect([r.status, r.body]).toEqual([400, invalidSymbol]);
      },
    );

    it.each(PATHS.flatMap((p) => ['1m', '3m', '8h', '3d', '1w', '1M', '5M', '1H', 'x'].map((s) => [p, s])))(
      '%s: period %p gives 400 -1120',
      async (path, period) => {
        const r = await get(path, { symbol: 'BTCUSDT', period });
        expect([r.status, r.body]).toEqual([400, invalidPeriod]);
      },
    );

    it.each(PATHS)(
      '%s: symbol is required (-1102); period defaults to 5m; each period is served',
      async (path) => {
        const missing = await get(path, {});
        expect([missing.status, missing.body.code]).toEqual([400, -1102]);
        const byDefault = await ok(get(path, { symbol: 'BTCUSDT', startTime: at(0), endTime: at(10) }));
        expect(byDefault.map((r) => r.timestamp)).toEqual([ts(0), ts(5), ts(10)]);
        for (const period of ['5m', '15m', '30m', '1h', '2h', '4h', '6h', '12h', '1d'] as StatsPeriod[]) {
          const r = await get(path, { symbol: 'BTCUSDT', period, limit: 1 });
          expect([path, period, r.status]).toEqual([path, period, 200]);
        }
      },
    );

    it('limit below 1 is -1102, a malformed time -1100', async () => {
      expect((await get('openInterestHist', { symbol: 'BTCUSDT', limit: 0 })).body.code).toBe(-1102);
      expect((await get('openInterestHist', { symbol: 'BTCUSDT', startTime: 'soon' })).body.code).toBe(-1100);
      expect((await get('openInterestHist', { symbol: 'BTCUSDT', endTime: '1.5' })).body.code).toBe(-1100);
    });

    it.each(PATHS)('%s weighs 1 (the spec: futures data endpoints 1)', async (path) => {
      const r = await get(path, { symbol: 'BTCUSDT', limit: 500 }, `10.8.0.${PATHS.indexOf(path) + 1}`);
      expect([r.status, r.headers['x-mbx-used-weight-1m']]).toEqual([200, '1']);
    });
  });
});
