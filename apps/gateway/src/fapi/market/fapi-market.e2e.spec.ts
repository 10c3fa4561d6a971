import { HOT_STORE, type HotStore } from '@perp/cache';
import { BOOK_TOP_KEY, DEPTH_KEY, TICKER_KEY, type TickerState } from '@perp/contracts';
import { bucketOpen } from '@perp/domain';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import {
  type MarketCandleEntity,
  MarketDataRepository,
  type MarketTradeEntity,
  PERSISTENCE_DATA_SOURCE,
} from '@perp/persistence';
import { http, type HttpResponse, json } from '@perp/testing';
import type { DataSource } from 'typeorm';

const MIN = 60_000;
const HOUR = 60 * MIN;
const WEIGHT_1M = 'x-mbx-used-weight-1m';

// Each request speaks for a client of its own (127.0.0.1 is the trusted proxy), so the weight
// header of its answer is exactly its own weight.
let nextClient = 1;
const newClientIp = () => `10.7.${Math.floor(nextClient / 250)}.${nextClient++ % 250}`;

/**
 * Every endpoint of the family over HTTP against the embedded exchange, with the projections the
 * market-data service writes seeded directly (hot store and Postgres), so each figure is known.
 */
describe('FAPI public market data: book, trades, klines, tickers (embedded exchange over HTTP)', () => {
  let ex: InProcessExchange;
  let hot: HotStore;
  let md: MarketDataRepository;
  /** The minute bucket the seeded series lead up to (all seeded times are before it). */
  const M = bucketOpen('1m', Date.now()) - 10 * MIN;

  const get = (path: string, params: Record<string, string> = {}): Promise<HttpResponse> => {
    const q = new URLSearchParams(params).toString();
    return http(`${ex.url}${path}${q ? `?${q}` : ''}`, { headers: { 'x-forwarded-for': newClientIp() } });
  };
  const ok = async (path: string, params: Record<string, string> = {}) => {
    const r = await get(path, params);
    expect({ path, status: r.status, body: r.status === 200 ? 'ok' : r.body }).toEqual({
      path,
      status: 200,
      body: 'ok',
    });
    return r.body;
  };

  const trade = (id: number, time: number, price: string, qty: string, takerSide: 'BUY' | 'SELL') =>
    ({
      symbol: 'BTCUSDT',
      id,
      tradeId: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      price,
      qty,
      quoteQty: String(Number(price) * Number(qty)),
      takerSide,
      takerOrderId: `o${id}`,
      time,
    }) satisfies MarketTradeEntity;

  const candle = (
    series: MarketCandleEntity['series'],
    interval: string,
    openTime: number,
    ohlc: [string, string, string, string],
    volume = '0',
    count = 1,
  ): MarketCandleEntity => ({
    symbol: 'BTCUSDT',
    series,
    interval,
    openTime,
    closeTime: openTime + (interval === '1h' ? HOUR : MIN) - 1,
    open: ohlc[0],
    high: ohlc[1],
    low: ohlc[2],
    close: ohlc[3],
    volume,
    quoteVolume: volume === '0' ? '0' : '150.05',
    count,
    takerBuyVolume: volume === '0' ? '0' : '0.002',
    takerBuyQuoteVolume: volume === '0' ? '0' : '100.02',
  });

  const ticker: TickerState = {
    openTime: M - 24 * HOUR + MIN,
    closeTime: M + MIN - 1,
    open: '50000',
    high: '50100',
    low: '49900',
    last: '50010',
    lastQty: '0.001',
    volume: '0.004',
    quoteVolume: '200.03',
    count: 4,
    firstTime: M - 5 * MIN + 1,
    lastTime: M - 2 * MIN + 7,
    lastTradeId: 4,
    lastPrice: '50010',
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({ TRUSTED_PROXIES: '127.0.0.1' });
    hot = ex.app.get<HotStore>(HOT_STORE);
    md = new MarketDataRepository(ex.app.get<DataSource>(PERSISTENCE_DATA_SOURCE).manager);
    await hot.hset(DEPTH_KEY('BTCUSDT'), {
      seq: '12',
      time: String(M - MIN),
      'b:49990': '0.5',
      'b:50000.0': '1.25',
      'b:49995.5': '2',
      'b:49000': '0', // emptied, not yet deleted: skipped
      'a:50010': '0.75',
      'a:50100.5': '3',
    });
    await md.insertTrades([
      trade(1, M - 5 * MIN + 1, '50000', '0.001', 'BUY'),
      trade(2, M - 5 * MIN + 1, '50000', '0.001', 'BUY'),
      trade(3, M - 2 * MIN + 5, '49900', '0.001', 'SELL'),
      trade(4, M - 2 * MIN + 7, '50010', '0.001', 'BUY'),
    ]);
    const agg = { symbol: 'BTCUSDT', buyerMaker: false };
    await md.upsertAggTrades([
      {
        ...agg,
        id: 1,
        price: '50000',
        qty: '0.002',
        firstId: 1,
        lastId: 2,
        time: M - 5 * MIN + 1,
        takerOrderId: 'o1',
      },
      {
        ...agg,
        id: 3,
        price: '49900',
        qty: '0.001',
        firstId: 3,
        lastId: 3,
        time: M - 2 * MIN + 5,
        takerOrderId: 'o3',
        buyerMaker: true,
      },
      {
        ...agg,
        id: 4,
        price: '50010',
        qty: '0.001',
        firstId: 4,
        lastId: 4,
        time: M - 2 * MIN + 7,
        takerOrderId: 'o4',
      },
    ]);
    await md.upsertCandles([
      candle('last', '1m', M - 5 * MIN, ['50000', '50000', '50000', '50000'], '0.002', 2),
      candle('last', '1m', M - 2 * MIN, ['49900', '50010', '49900', '50010'], '0.002', 2),
      candle('mark', '1m', M - 3 * MIN, ['50001.5', '50002', '50001', '50002'], '0', 3),
      candle('index', '1m', M - 3 * MIN, ['50000.25', '50000.25', '50000.25', '50000.25'], '0', 1),
      candle('premium', '1m', M - 3 * MIN, ['0.0001', '0.0002', '-0.00005', '0.00003'], '0', 2),
    ]);
    await hot.set(TICKER_KEY('BTCUSDT'), JSON.stringify(ticker));
    await hot.hset(BOOK_TOP_KEY('BTCUSDT'), {
      bidPrice: '50000.0',
      bidQty: '1.25',
      askPrice: '50010.0',
      askQty: '0.75',
      seq: '12',
      time: String(M - MIN),
    });
  });
  afterAll(() => ex?.close());

  describe('GET /fapi/v1/depth', () => {
    it("answers Binance's shape: sorted best first, at the market precisions, lastUpdateId = engine seq", async () => {
      const before = Date.now();
      const body = await ok('/fapi/v1/depth', { symbol: 'btc-usd' });
      expect(body).toEqual({
        lastUpdateId: 12,
        E: expect.any(Number),
        T: M - MIN,
        bids: [
          ['50000.0', '1.250'],
          ['49995.5', '2.000'],
          ['49990.0', '0.500'],
        ],
        asks: [
          ['50010.0', '0.750'],
          ['50100.5', '3.000'],
        ],
      });
      expect(body.E).toBeGreaterThanOrEqual(before);
    });

    it('cuts each side to the limit; a changed book is read again at its new sequence', async () => {
      expect(await ok('/fapi/v1/depth', { symbol: 'BTCUSDT', limit: '5' })).toMatchObject({
        lastUpdateId: 12,
      });
      await hot.hset(DEPTH_KEY('BTCUSDT'), { seq: '13', 'b:50005': '0.1' });
      const body = await ok('/fapi/v1/depth', { symbol: 'BTCUSDT', limit: '5' });
      expect(body.lastUpdateId).toBe(13);
      expect(body.bids[0]).toEqual(['50005.0', '0.100']);
      await hot.hset(DEPTH_KEY('BTCUSDT'), { seq: '14', 'b:50005': '0' });
      expect((await ok('/fapi/v1/depth', { symbol: 'BTCUSDT' })).bids[0]).toEqual(['50000.0', '1.250']);
    });

    it('a book never projected is empty at lastUpdateId 0', async () => {
      expect(await ok('/fapi/v1/depth', { symbol: 'SOLUSDT', limit: '1000' })).toMatchObject({
        lastUpdateId: 0,
        bids: [],
        asks: [],
      });
    });

    it.each(['7', '0', '5000', 'ten'])('limit=%s: 400 -1100 with the legal range', async (limit) => {
      const r = await get('/fapi/v1/depth', { symbol: 'BTCUSDT', limit });
      expect({ status: r.status, body: r.body }).toEqual({
        status: 400,
        body: {
          code: -1100,
          msg: "Illegal characters found in parameter 'limit'; legal range is '5, 10, 20, 50, 100, 500, 1000'.",
        },
      });
    });
  });

  describe('trades', () => {
    const rows = {
      1: {
        id: 1,
        price: '50000.0',
        qty: '0.001',
        quoteQty: '50',
        time: M - 5 * MIN + 1,
        isBuyerMaker: false,
      },
      2: {
        id: 2,
        price: '50000.0',
        qty: '0.001',
        quoteQty: '50',
        time: M - 5 * MIN + 1,
        isBuyerMaker: false,
      },
      3: {
        id: 3,
        price: '49900.0',
        qty: '0.001',
        quoteQty: '49.9',
        time: M - 2 * MIN + 5,
        isBuyerMaker: true,
      },
      4: {
        id: 4,
        price: '50010.0',
        qty: '0.001',
        quoteQty: '50.01',
        time: M - 2 * MIN + 7,
        isBuyerMaker: false,
      },
    };

    it('GET /fapi/v1/trades: the latest `limit`, oldest first', async () => {
      expect(await ok('/fapi/v1/trades', { symbol: 'BTCUSDT' })).toEqual([
        rows[1],
        rows[2],
        rows[3],
        rows[4],
      ]);
      expect(await ok('/fapi/v1/trades', { symbol: 'BTCUSDT', limit: '2' })).toEqual([rows[3], rows[4]]);
      expect(await ok('/fapi/v1/trades', { symbol: 'BTCUSDT', limit: '5000' })).toHaveLength(4); // clamped
      expect(await ok('/fapi/v1/trades', { symbol: 'ETHUSDT' })).toEqual([]);
    });

    it('GET /fapi/v1/historicalTrades pages by fromId, with no API key', async () => {
      expect(await ok('/fapi/v1/historicalTrades', { symbol: 'BTCUSDT', fromId: '2', limit: '2' })).toEqual([
        rows[2],
        rows[3],
      ]);
      expect(await ok('/fapi/v1/historicalTrades', { symbol: 'BTCUSDT', limit: '1' })).toEqual([rows[4]]);
    });

    it('GET /fapi/v1/aggTrades by fromId, by time window, or the latest', async () => {
      const a1 = { a: 1, p: '50000.0', q: '0.002', f: 1, l: 2, T: M - 5 * MIN + 1, m: false };
      const a3 = { a: 3, p: '49900.0', q: '0.001', f: 3, l: 3, T: M - 2 * MIN + 5, m: true };
      const a4 = { a: 4, p: '50010.0', q: '0.001', f: 4, l: 4, T: M - 2 * MIN + 7, m: false };
      expect(await ok('/fapi/v1/aggTrades', { symbol: 'BTCUSDT' })).toEqual([a1, a3, a4]);
      expect(await ok('/fapi/v1/aggTrades', { symbol: 'BTCUSDT', fromId: '2' })).toEqual([a3, a4]);
      expect(
        await ok('/fapi/v1/aggTrades', {
          symbol: 'BTCUSDT',
          startTime: String(M - 3 * MIN),
          endTime: String(M - 2 * MIN + 5),
        }),
      ).toEqual([a3]);
      expect(await ok('/fapi/v1/aggTrades', { symbol: 'BTCUSDT', limit: '1' })).toEqual([a4]);
    });

    it('aggTrades over more than an hour: 400 -1130', async () => {
      const r = await get('/fapi/v1/aggTrades', {
        symbol: 'BTCUSDT',
        startTime: '0',
        endTime: String(HOUR + 1),
      });
      expect({ status: r.status, body: r.body }).toEqual({
        status: 400,
        body: { code: -1130, msg: 'More than 1 hours between startTime and endTime.' },
      });
    });
  });

  describe('klines', () => {
    const flat = (t: number, p: string) => [
      t,
      p,
      p,
      p,
      p,
      '0.000',
      t + MIN - 1,
      '0.0000',
      0,
      '0.000',
      '0.0000',
      '0',
    ];

    it('GET /fapi/v1/klines: stored buckets and the gaps between them, flat at the previous close', async () => {
      const body = await ok('/fapi/v1/klines', {
        symbol: 'BTCUSDT',
        interval: '1m',
        startTime: String(M - 6 * MIN),
        endTime: String(M - MIN),
      });
      expect(body).toEqual([
        [
          M - 5 * MIN,
          '50000.0',
          '50000.0',
          '50000.0',
          '50000.0',
          '0.002',
          M - 4 * MIN - 1,
          '150.0500',
          2,
          '0.002',
          '100.0200',
          '0',
        ],
        flat(M - 4 * MIN, '50000.0'),
        flat(M - 3 * MIN, '50000.0'),
        [
          M - 2 * MIN,
          '49900.0',
          '50010.0',
          '49900.0',
          '50010.0',
          '0.002',
          M - MIN - 1,
          '150.0500',
          2,
          '0.002',
          '100.0200',
          '0',
        ],
        flat(M - MIN, '50010.0'),
      ]);
    });

    it('without startTime: the last `limit` buckets, up to now at most', async () => {
      expect(
        await ok('/fapi/v1/klines', {
          symbol: 'BTCUSDT',
          interval: '1m',
          endTime: String(M - MIN),
          limit: '2',
        }),
      ).toEqual([expect.arrayContaining([M - 2 * MIN]), flat(M - MIN, '50010.0')]);
      const before = bucketOpen('1m', Date.now());
      const body = (await ok('/fapi/v1/klines', {
        symbol: 'BTCUSDT',
        interval: '1m',
        limit: '3',
      })) as number[][];
      const after = bucketOpen('1m', Date.now());
      expect(body).toHaveLength(3);
      expect(body[2]![0]).toBeGreaterThanOrEqual(before);
      expect(body[2]![0]).toBeLessThanOrEqual(after);
      expect(body[2]![1]).toBe('50010.0');
    });

    it('a window before the first trade is empty; one starting in a gap carries the close before it', async () => {
      expect(
        await ok('/fapi/v1/klines', {
          symbol: 'BTCUSDT',
          interval: '1m',
          startTime: String(M - 20 * MIN),
          endTime: String(M - 6 * MIN),
        }),
      ).toEqual([]);
      expect(
        await ok('/fapi/v1/klines', {
          symbol: 'BTCUSDT',
          interval: '1m',
          startTime: String(M - 4 * MIN + 1),
          endTime: String(M - 3 * MIN),
        }),
      ).toEqual([flat(M - 3 * MIN, '50000.0')]);
    });

    it('every one of the 15 intervals is served', async () => {
      for (const interval of [
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
      ])
        expect(Array.isArray(await ok('/fapi/v1/klines', { symbol: 'BTCUSDT', interval, limit: '1' }))).toBe(
          true,
        );
    });

    it('continuousKlines by pair and PERPETUAL is the same series', async () => {
      const window = { interval: '1m', startTime: String(M - 6 * MIN), endTime: String(M - MIN) };
      expect(
        await ok('/fapi/v1/continuousKlines', { pair: 'BTCUSDT', contractType: 'PERPETUAL', ...window }),
      ).toEqual(await ok('/fapi/v1/klines', { symbol: 'BTCUSDT', ...window }));
      const r = await get('/fapi/v1/continuousKlines', {
        pair: 'BTCUSDT',
        contractType: 'CURRENT_QUARTER',
        ...window,
      });
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: -1130 });
    });

    it('mark, index and premium-index klines: "0" in the volume positions, the sample count', async () => {
      const window = { interval: '1m', startTime: String(M - 3 * MIN), endTime: String(M - 2 * MIN) };
      const row = (t: number, o: string, h: string, l: string, c: string, n: number) => [
        t,
        o,
        h,
        l,
        c,
        '0',
        t + MIN - 1,
        '0',
        n,
        '0',
        '0',
        '0',
      ];
      expect(await ok('/fapi/v1/markPriceKlines', { symbol: 'BTCUSDT', ...window })).toEqual([
        row(M - 3 * MIN, '50001.50000000', '50002.00000000', '50001.00000000', '50002.00000000', 3),
        row(M - 2 * MIN, '50002.00000000', '50002.00000000', '50002.00000000', '50002.00000000', 0),
      ]);
      const index = await ok('/fapi/v1/indexPriceKlines', { pair: 'BTCUSDT', ...window });
      expect(index[0]).toEqual(
        row(M - 3 * MIN, '50000.25000000', '50000.25000000', '50000.25000000', '50000.25000000', 1),
      );
      const premium = await ok('/fapi/v1/premiumIndexKlines', { symbol: 'BTCUSDT', ...window });
      expect(premium[0]).toEqual(
        row(M - 3 * MIN, '0.00010000', '0.00020000', '-0.00005000', '0.00003000', 2),
      );
    });
  });

  describe('tickers', () => {
    it('GET /fapi/v1/ticker/24hr from the projected ticker: vwap, count, firstId/lastId as times', async () => {
      expect(await ok('/fapi/v1/ticker/24hr', { symbol: 'BTCUSDT' })).toEqual({
        symbol: 'BTCUSDT',
        priceChange: '10.0',
        priceChangePercent: '0.020',
        weightedAvgPrice: '50007.5',
        lastPrice: '50010.0',
        lastQty: '0.001',
        openPrice: '50000.0',
        highPrice: '50100.0',
        lowPrice: '49900.0',
        volume: '0.004',
        quoteVolume: '200.03',
        openTime: ticker.openTime,
        closeTime: ticker.closeTime,
        firstId: ticker.firstTime,
        lastId: ticker.lastTime,
        count: 4,
      });
      const all = await ok('/fapi/v1/ticker/24hr');
      expect(all.map((t: { symbol: string; count: number }) => [t.symbol, t.count])).toEqual([
        ['BTCUSDT', 4],
        ['ETHUSDT', 0],
        ['SOLUSDT', 0],
      ]);
    });

    it('GET /fapi/v1/ticker/price and /fapi/v2/ticker/price: {symbol, price, time}', async () => {
      const btc = { symbol: 'BTCUSDT', price: '50010.0', time: ticker.lastTime };
      expect(await ok('/fapi/v1/ticker/price', { symbol: 'btcusdt' })).toEqual(btc);
      expect(await ok('/fapi/v2/ticker/price', { symbol: 'BTCUSDT' })).toEqual(btc);
      const all = await ok('/fapi/v2/ticker/price');
      expect(all[0]).toEqual(btc);
      expect(all.map((t: { symbol: string }) => t.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
    });

    it('GET /fapi/v1/ticker/bookTicker: the projected top; an empty book shows the feed price and "0"', async () => {
      expect(await ok('/fapi/v1/ticker/bookTicker', { symbol: 'BTCUSDT' })).toEqual({
        symbol: 'BTCUSDT',
        bidPrice: '50000.0',
        bidQty: '1.250',
        askPrice: '50010.0',
        askQty: '0.750',
        time: M - MIN,
        lastUpdateId: 12,
      });
      const pushed = await json(
        `${ex.url}/admin/v1/prices/ETHUSDT`,
        'POST',
        { indexPrice: '3000.12' },
        ex.adminToken,
      );
      expect(pushed.status).toBe(200);
      let eth: Record<string, unknown> = {};
      for (let i = 0; i < 200 && eth.bidPrice !== '3000.12'; i++) {
        eth = await ok('/fapi/v1/ticker/bookTicker', { symbol: 'ETHUSDT' });
        if (eth.bidPrice !== '3000.12') await new Promise((r) => setTimeout(r, 25));
      }
      expect(eth).toEqual({
        symbol: 'ETHUSDT',
        bidPrice: '3000.12',
        bidQty: '0',
        askPrice: '3000.12',
        askQty: '0',
        time: expect.any(Number),
        lastUpdateId: 0,
      });
      expect((await ok('/fapi/v1/ticker/bookTicker')).map((t: { symbol: string }) => t.symbol)).toEqual([
        'BTCUSDT',
        'ETHUSDT',
        'SOLUSDT',
      ]);
    });

    it('native GET /api/v1/markets carries the same 24 h figures', async () => {
      const r = await http(`${ex.url}/api/v1/markets`);
      expect(r.status).toBe(200);
      expect(r.body[0]).toMatchObject({
        symbol: 'BTCUSDT',
        last_price: '50010.0',
        price_change_24h: '10.0',
        price_change_percent_24h: '0.020',
        high_24h: '50100.0',
        low_24h: '49900.0',
        volume_24h: '0.004',
        quote_volume_24h: '200.03',
        trades_24h: 4,
      });
      expect(r.body[1]).toMatchObject({ symbol: 'ETHUSDT', last_price: '0.00', trades_24h: 0 });
    });
  });

  describe('error rows: 400 {code, msg} for every endpoint that takes a symbol or an interval', () => {
    const bySymbol = [
      'depth',
      'trades',
      'historicalTrades',
      'aggTrades',
      'klines',
      'markPriceKlines',
      'premiumIndexKlines',
    ];
    const byPair = ['continuousKlines', 'indexPriceKlines'];
    const klines = [
      'klines',
      'continuousKlines',
      'indexPriceKlines',
      'markPriceKlines',
      'premiumIndexKlines',
    ];
    const base = (e: string) => ({
      ...(byPair.includes(e) ? { pair: 'BTCUSDT' } : { symbol: 'BTCUSDT' }),
      ...(klines.includes(e) ? { interval: '1h' } : {}),
      ...(e === 'continuousKlines' ? { contractType: 'PERPETUAL' } : {}),
    });
    const name = (e: string) => (byPair.includes(e) ? 'pair' : 'symbol');
    const without = (o: Record<string, string>, key: string) =>
      Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
    const invalidSymbol = { code: -1121, msg: 'Invalid symbol.' };
    const missing = (p: string) => ({
      code: -1102,
      msg: `Mandatory parameter '${p}' was not sent, was empty/null, or malformed.`,
    });
    const rows: [string, Record<string, string>, { code: number; msg: string }][] = [
      ...[...bySymbol, ...byPair].flatMap(
        (e): [string, Record<string, string>, { code: number; msg: string }][] => [
          [e, { ...base(e), [name(e)]: 'DOGEUSDT' }, invalidSymbol],
          [e, { ...base(e), [name(e)]: 'btc' }, invalidSymbol],
          [e, without(base(e), name(e)), missing(name(e))],
        ],
      ),
      ...klines.flatMap((e): [string, Record<string, string>, { code: number; msg: string }][] => [
        [e, { ...base(e), interval: '2m' }, { code: -1120, msg: 'Invalid interval.' }],
        [e, { ...base(e), interval: '1H' }, { code: -1120, msg: 'Invalid interval.' }],
        [e, without(base(e), 'interval'), missing('interval')],
      ]),
      ...['ticker/24hr', 'ticker/price', 'ticker/bookTicker'].map(
        (e): [string, Record<string, string>, { code: number; msg: string }] => [
          e,
          { symbol: 'NOPEUSDT' },
          invalidSymbol,
        ],
      ),
    ];
    it.each(rows)('/fapi/v1/%s %j: 400 %j', async (endpoint, params, body) => {
      const r = await get(`/fapi/v1/${endpoint}`, params);
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body });
    });

    it('/fapi/v2/ticker/price with an unknown symbol: 400 -1121', async () => {
      const r = await get('/fapi/v2/ticker/price', { symbol: 'NOPEUSDT' });
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: invalidSymbol });
    });
  });

  describe('request weights (X-MBX-USED-WEIGHT-1M of a fresh client)', () => {
    const k = { symbol: 'BTCUSDT', interval: '1m' };
    it.each([
      ['/fapi/v1/depth', { symbol: 'BTCUSDT', limit: '5' }, 2],
      ['/fapi/v1/depth', { symbol: 'BTCUSDT', limit: '100' }, 5],
      ['/fapi/v1/depth', { symbol: 'BTCUSDT' }, 10],
      ['/fapi/v1/depth', { symbol: 'BTCUSDT', limit: '1000' }, 20],
      ['/fapi/v1/trades', { symbol: 'BTCUSDT' }, 5],
      ['/fapi/v1/historicalTrades', { symbol: 'BTCUSDT' }, 20],
      ['/fapi/v1/aggTrades', { symbol: 'BTCUSDT' }, 20],
      ['/fapi/v1/klines', { ...k, limit: '99' }, 1],
      ['/fapi/v1/klines', { ...k, limit: '100' }, 2],
      ['/fapi/v1/klines', k, 5],
      ['/fapi/v1/klines', { ...k, limit: '1500' }, 10],
      ['/fapi/v1/continuousKlines', { pair: 'BTCUSDT', contractType: 'PERPETUAL', interval: '1m' }, 5],
      ['/fapi/v1/indexPriceKlines', { pair: 'BTCUSDT', interval: '1m', limit: '10' }, 1],
      ['/fapi/v1/markPriceKlines', { ...k, limit: '200' }, 2],
      ['/fapi/v1/premiumIndexKlines', { ...k, limit: '1001' }, 10],
      ['/fapi/v1/ticker/24hr', { symbol: 'BTCUSDT' }, 1],
      ['/fapi/v1/ticker/24hr', {}, 40],
      ['/fapi/v1/ticker/price', { symbol: 'BTCUSDT' }, 1],
      ['/fapi/v1/ticker/price', {}, 2],
      ['/fapi/v2/ticker/price', {}, 2],
      ['/fapi/v1/ticker/bookTicker', { symbol: 'BTCUSDT' }, 1],
      ['/fapi/v1/ticker/bookTicker', {}, 2],
    ] as [string, Record<string, string>, number][])('%s %j weighs %i', async (path, params, weight) => {
      const r = await get(path, params);
      expect({ status: r.status, weight: Number(r.headers[WEIGHT_1M]) }).toEqual({ status: 200, weight });
    });
  });
});
