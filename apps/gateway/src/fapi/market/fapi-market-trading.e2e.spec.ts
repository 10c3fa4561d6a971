import { bucketClose, bucketOpen, type KlineInterval, Money, nextBucketOpen } from '@perp/domain';
import { type InProcessExchange, noInterest, startInProcessExchange } from '@perp/exchange';
import { createKey, http, json, type KeyPair, login, signed } from '@perp/testing';
import ccxt from 'ccxt';
import { Wallet } from 'ethers';

const BTC = 'BTCUSDT';

/** A public trade as GET /fapi/v1/trades answers it. */
interface PublicTrade {
  id: number;
  price: string;
  qty: string;
  quoteQty: string;
  time: number;
  isBuyerMaker: boolean;
}

/** Polls `read` until `done` holds (the projector writes behind the log), at most ~10 s. */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 400 && !done(v); i++) {
    await new Promise((r) => setTimeout(r, 25));
    v = await read();
  }
  return v;
}

/**
 * The expected last-price klines of `trades` for `interval`, computed by hand: one candle per
 * bucket from the first trade's to the last trade's, a bucket without trades flat at the previous
 * close with zero volume.
 */
function expectedKlines(trades: PublicTrade[], interval: KlineInterval) {
  const rows: unknown[][] = [];
  let close = '';
  const last = bucketOpen(interval, trades[trades.length - 1]!.time);
  for (
    let open = bucketOpen(interval, trades[0]!.time);
    open <= last;
    open = nextBucketOpen(interval, open)
  ) {
    const inBucket = trades.filter((t) => bucketOpen(interval, t.time) === open);
    const sum = (pick: (t: PublicTrade) => Money) => inBucket.reduce((s, t) => s.plus(pick(t)), new Money(0));
    const prices = inBucket.map((t) => new Money(t.price));
    const buys = inBucket.filter((t) => !t.isBuyerMaker);
    const px = (m: Money) => m.toFixed(1);
    const quote = (ts: PublicTrade[]) => ts.reduce((s, t) => s.plus(t.quoteQty), new Money(0)).toFixed(4);
    if (inBucket.length) close = inBucket[inBucket.length - 1]!.price;
    rows.push(
      inBucket.length
        ? [
            open,
            inBucket[0]!.price,
            px(Money.max(...prices)),
            px(Money.min(...prices)),
            close,
            sum((t) => new Money(t.qty)).toFixed(3),
            bucketClose(interval, open),
            quote(inBucket),
            inBucket.length,
            buys.reduce((s, t) => s.plus(t.qty), new Money(0)).toFixed(3),
            quote(buys),
            '0',
          ]
        : [
            open,
            close,
            close,
            close,
            close,
            '0.000',
            bucketClose(interval, open),
            '0.0000',
            0,
            '0.000',
            '0.0000',
            '0',
          ],
    );
  }
  return rows;
}

// Two users trade a known sequence through the embedded exchange; the market-data service projects
// it and every public endpoint answers the figures computed by hand.
describe('FAPI public market data after a known trade sequence (embedded exchange)', () => {
  let ex: InProcessExchange;
  let maker: KeyPair;
  let taker: KeyPair;
  let trades: PublicTrade[];

  const get = async (path: string, params: Record<string, string> = {}) => {
    const r = await http(`${ex.url}${path}?${new URLSearchParams(params).toString()}`);
    expect({ path, status: r.status }).toEqual({ path, status: 200 });
    return r.body;
  };
  const order = async (key: KeyPair, params: Record<string, string>) => {
    const r = await signed(ex.url, '/fapi/v1/order', key, {
      method: 'POST',
      params: { symbol: BTC, ...params },
    });
    expect({ status: r.status, body: r.status === 200 ? 'ok' : r.body }).toEqual({ status: 200, body: 'ok' });
    return r.body;
  };
  const trader = async () => {
    const wallet = Wallet.createRandom();
    const key = await createKey(ex.url, await login(ex.url, wallet));
    const address = wallet.address.toLowerCase();
    const r = await json(
      `${ex.url}/admin/v1/deposits`,
      'POST',
      { address, asset: 'USDT', amount: '100000' },
      ex.adminToken,
    );
    expect(r.status).toBe(200);
    return key;
  };

  beforeAll(async () => {
    // Figures at mark = index: a market without premium and interest has its index as mark.
    ex = await startInProcessExchange({}, { markets: noInterest });
    [maker, taker] = [await trader(), await trader()];
    const price = await json(
      `${ex.url}/admin/v1/prices/${BTC}`,
      'POST',
      { indexPrice: '50000' },
      ex.adminToken,
    );
    expect(price.status).toBe(200);
    await order(maker, { side: 'SELL', type: 'LIMIT', price: '50000', quantity: '0.004' });
    await order(maker, { side: 'SELL', type: 'LIMIT', price: '50000', quantity: '0.006' });
    await order(maker, { side: 'SELL', type: 'LIMIT', price: '50010', quantity: '0.020' });
    // One taker order across three makers and two prices: three trades, two aggregates.
    expect(await order(taker, { side: 'BUY', type: 'MARKET', quantity: '0.015' })).toMatchObject({
      status: 'FILLED',
    });
    await order(maker, { side: 'BUY', type: 'LIMIT', price: '49990', quantity: '0.010' });
    await order(taker, { side: 'SELL', type: 'MARKET', quantity: '0.004' });
    await order(taker, { side: 'BUY', type: 'LIMIT', price: '50010', quantity: '0.003', timeInForce: 'IOC' });
    trades = await eventually(
      () => get('/fapi/v1/trades', { symbol: BTC }) as Promise<PublicTrade[]>,
      (ts) => ts.length === 5,
    );
  });
  afterAll(() => ex?.close());

  it('trades: five, oldest first, integer ids increasing, prices and sides as traded', () => {
    expect(trades.map((t) => [t.price, t.qty, t.quoteQty, t.isBuyerMaker])).toEqual([
      ['50000.0', '0.004', '200', false],
      ['50000.0', '0.006', '300', false],
      ['50010.0', '0.005', '250.05', false],
      ['49990.0', '0.004', '199.96', true],
      ['50010.0', '0.003', '150.03', false],
    ]);
    const ids = trades.map((t) => t.id);
    expect(ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true);
  });

  it('historicalTrades pages from fromId', async () => {
    expect(
      await get('/fapi/v1/historicalTrades', { symbol: BTC, fromId: String(trades[1]!.id), limit: '2' }),
    ).toEqual(trades.slice(1, 3));
  });

  it('aggTrades: the taker order at one price is one aggregate of two fills', async () => {
    const [t1, t2, t3, t4, t5] = trades as [PublicTrade, PublicTrade, PublicTrade, PublicTrade, PublicTrade];
    const agg = (first: PublicTrade, last: PublicTrade, q: string) => ({
      a: first.id,
      p: first.price,
      q,
      f: first.id,
      l: last.id,
      T: first.time,
      m: first.isBuyerMaker,
    });
    const all = [agg(t1, t2, '0.010'), agg(t3, t3, '0.005'), agg(t4, t4, '0.004'), agg(t5, t5, '0.003')];
    expect(await get('/fapi/v1/aggTrades', { symbol: BTC })).toEqual(all);
    expect(await get('/fapi/v1/aggTrades', { symbol: BTC, fromId: String(t3.id) })).toEqual(all.slice(1));
    expect(
      await get('/fapi/v1/aggTrades', { symbol: BTC, startTime: String(t1.time), endTime: String(t5.time) }),
    ).toEqual(all);
  });

  it.each(['1m', '5m', '1h', '1d', '1w', '1M'] as KlineInterval[])(
    'klines %s over the trades: exact OHLCV and taker-buy volumes, from the first real bucket on',
    async (interval) => {
      // Starting just before the first trade's bucket: nothing is invented before it.
      const startTime = String(bucketOpen(interval, trades[0]!.time) - 1);
      const window = { symbol: BTC, interval, startTime, endTime: String(trades[4]!.time) };
      const expected = expectedKlines(trades, interval);
      expect(await get('/fapi/v1/klines', window)).toEqual(expected);
      const { symbol, ...rest } = window;
      expect(
        await get('/fapi/v1/continuousKlines', { ...rest, pair: symbol, contractType: 'PERPETUAL' }),
      ).toEqual(expected);
    },
  );

  it('klines 1h without a window: the latest bucket carries the last close', async () => {
    const rows = (await get('/fapi/v1/klines', { symbol: BTC, interval: '1h', limit: '1' })) as unknown[][];
    expect(rows).toHaveLength(1);
    expect(rows[0]![4]).toBe('50010.0');
  });

  it('mark and index klines from the price feed: the pushed price, "0" volumes', async () => {
    const rows = (await eventually(
      () => get('/fapi/v1/markPriceKlines', { symbol: BTC, interval: '1d', limit: '1' }),
      (r: unknown[][]) => r.length === 1,
    )) as unknown[][];
    expect(rows[0]).toEqual([
      expect.any(Number),
      '50000.00000000',
      '50000.00000000',
      '50000.00000000',
      '50000.00000000',
      '0',
      expect.any(Number),
      '0',
      1,
      '0',
      '0',
      '0',
    ]);
    expect(await get('/fapi/v1/indexPriceKlines', { pair: BTC, interval: '1d', limit: '1' })).toEqual(rows);
  });

  it('ticker/24hr: the day so far, vwap = quote volume / volume, firstId/lastId the trade times', async () => {
    const t = await eventually(
      () => get('/fapi/v1/ticker/24hr', { symbol: BTC }),
      (v: { count: number; closeTime: number }) => v.count === 5,
    );
    expect(t).toEqual({
      symbol: BTC,
      priceChange: '10.0',
      priceChangePercent: '0.020',
      weightedAvgPrice: '50001.8', // 1100.04 / 0.022
      lastPrice: '50010.0',
      lastQty: '0.003',
      openPrice: '50000.0',
      highPrice: '50010.0',
      lowPrice: '49990.0',
      volume: '0.022',
      quoteVolume: '1100.04',
      openTime: t.closeTime - 24 * 3600_000,
      closeTime: expect.any(Number), // the last trade's time, or later once the window rolled
      firstId: trades[0]!.time,
      lastId: trades[4]!.time,
      count: 5,
    });
    expect(t.closeTime).toBeGreaterThanOrEqual(trades[4]!.time);
  });

  it('ticker/price v1 and v2: the last trade', async () => {
    const expected = { symbol: BTC, price: '50010.0', time: trades[4]!.time };
    expect(await get('/fapi/v1/ticker/price', { symbol: BTC })).toEqual(expected);
    expect(await get('/fapi/v2/ticker/price', { symbol: BTC })).toEqual(expected);
  });

  it('bookTicker: what rests after the sequence, with the book sequence as lastUpdateId', async () => {
    // The book-top projection is a consumer of its own: wait for the last command's top.
    const b = await eventually(
      () => get('/fapi/v1/ticker/bookTicker', { symbol: BTC }),
      (v: { askQty: string; lastUpdateId: number }) => v.askQty === '0.012',
    );
    expect(b).toEqual({
      symbol: BTC,
      bidPrice: '49990.0',
      bidQty: '0.006',
      askPrice: '50010.0',
      askQty: '0.012',
      time: trades[4]!.time,
      lastUpdateId: expect.any(Number),
    });
    expect(b.lastUpdateId).toBeGreaterThanOrEqual(trades[4]!.id);
  });

  it('depth: the resting levels at the book sequence, the same as bookTicker', async () => {
    const top = await get('/fapi/v1/ticker/bookTicker', { symbol: BTC });
    const depth = await eventually(
      () => get('/fapi/v1/depth', { symbol: BTC }),
      (d: { lastUpdateId: number; bids: unknown; asks: unknown }) => d.lastUpdateId >= top.lastUpdateId,
    );
    expect(depth).toEqual({
      lastUpdateId: top.lastUpdateId,
      E: expect.any(Number),
      T: trades[4]!.time,
      bids: [['49990.0', '0.006']],
      asks: [['50010.0', '0.012']],
    });
    expect(await get('/fapi/v1/depth', { symbol: BTC, limit: '5' })).toMatchObject({
      lastUpdateId: top.lastUpdateId,
      bids: depth.bids,
      asks: depth.asks,
    });
  });

  it("ccxt's unified market-data methods read well-formed results", async () => {
    const c = new ccxt.binanceusdm({ options: { fetchCurrencies: false } });
    const api = c.urls['api'] as Record<string, string>;
    for (const name of Object.keys(api))
      if (name.startsWith('fapi')) api[name] = api[name]!.replace('https://fapi.binance.com', ex.url);
    const SYM = 'BTC/USDT:USDT';
    await c.loadMarkets();
    const book = await c.fetchOrderBook(SYM);
    expect([book.bids, book.asks]).toEqual([[[49990, 0.006]], [[50010, 0.012]]]);
    expect(book.nonce).toEqual(expect.any(Number));
    expect([...book.bids.map((l) => l[0]!)]).toEqual([...book.bids.map((l) => l[0]!)].sort((x, y) => y - x));
    expect([...book.asks.map((l) => l[0]!)]).toEqual([...book.asks.map((l) => l[0]!)].sort((x, y) => x - y));
    const fetched = await c.fetchTrades(SYM);
    expect(fetched.map((t) => [t.price, t.amount, t.side])).toEqual([
      [50000, 0.01, 'buy'],
      [50010, 0.005, 'buy'],
      [49990, 0.004, 'sell'],
      [50010, 0.003, 'buy'],
    ]);
    const ohlcv = await c.fetchOHLCV(SYM, '1m', trades[0]!.time - 60_000, 10);
    expect(ohlcv.length).toBeGreaterThan(0);
    expect(ohlcv.every((k, i) => i === 0 || k[0]! > ohlcv[i - 1]![0]!)).toBe(true);
    expect(ohlcv[0]!.slice(1, 6)).toEqual(expectedKlines(trades, '1m')[0]!.slice(1, 6).map(Number));
    const ticker = await c.fetchTicker(SYM);
    expect([ticker.last, ticker.vwap, ticker.baseVolume, ticker.quoteVolume]).toEqual([
      50010, 50001.8, 0.022, 1100.04,
    ]);
    expect((await c.fetchBidsAsks([SYM]))[SYM]).toMatchObject({
      bid: 49990,
      ask: 50010,
      bidVolume: 0.006,
      askVolume: 0.012,
    });
    expect((await c.fetchLastPrices([SYM]))[SYM]).toMatchObject({ price: 50010 });
  });

  it('native GET /api/v1/markets carries the same 24 h figures', async () => {
    const markets = (await get('/api/v1/markets')) as Record<string, unknown>[];
    expect(markets[0]).toMatchObject({
      symbol: BTC,
      last_price: '50010.0',
      price_change_24h: '10.0',
      high_24h: '50010.0',
      low_24h: '49990.0',
      volume_24h: '0.022',
      quote_volume_24h: '1100.04',
      trades_24h: 5,
    });
  });
});
