import { LocalBook, type MergedDelta } from '@perp/domain';
import { http, signed } from '@perp/testing';
import { StreamHub } from '@perp/gateway';
import type { InProcessExchange } from '../testing/in-process-exchange';
import { eventually, type Trader } from '../trading/trading.harness';
import { StreamClients } from './stream-client.harness';
import { binanceUsdmPro, tradingExchange } from './streams.harness';

jest.setTimeout(120_000);

const BTC = 'BTCUSDT';
const CCXT_BTC = 'BTC/USDT:USDT';

/** A seeded generator (mulberry32): the same order stream on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Binance's documented local order book procedure, and ccxt pro, against the embedded exchange.
describe('diff depth keeps a local book equal to REST depth', () => {
  let ex: InProcessExchange;
  let traders: Trader[];
  const clients = new StreamClients(() => ex.url);
  const rest = async () => (await http(`${ex.url}/fapi/v1/depth?symbol=${BTC}&limit=1000`)).body;

  /** `count` random orders (limit both sides around 50000, some crossing, some canceled) from the traders. */
  async function orderStream(count: number, seed: number, midway?: () => Promise<void>) {
    const next = random(seed);
    const open: { t: Trader; orderId: string }[] = [];
    for (let i = 0; i < count; i++) {
      if (i === Math.floor(count / 2)) await midway?.();
      const t = traders[Math.floor(next() * traders.length)]!;
      if (open.length > 0 && next() < 0.2) {
        const [o] = open.splice(Math.floor(next() * open.length), 1);
        await signed(ex.url, '/fapi/v1/order', o!.t.key, {
          method: 'DELETE',
          params: { symbol: BTC, orderId: o!.orderId },
        });
        continue;
      }
      const side = next() < 0.5 ? 'BUY' : 'SELL';
      // Buys mostly below 50000 and sells above, with an overlap that makes trades.
      const offset = Math.floor(next() * 40) - (side === 'BUY' ? 32 : 8);
      const price = (50000 + offset * 5).toFixed(1);
      const quantity = (0.001 * (1 + Math.floor(next() * 50))).toFixed(3);
      const r = await signed(ex.url, '/fapi/v1/order', t.key, {
        method: 'POST',
        params: { symbol: BTC, side, type: 'LIMIT', timeInForce: 'GTC', quantity, price },
      });
      expect(r.status).toBe(200);
      if (r.body.status === 'NEW' || r.body.status === 'PARTIALLY_FILLED')
        open.push({ t, orderId: String(r.body.orderId) });
    }
  }

  beforeAll(async () => {
    // The tests poll REST depth (weight 20 at limit 1000) while waiting for the streams: a budget
    // that polling cannot exhaust, so a 429 never stands in for a book (and never starves ccxt's
    // own snapshot requests).
    ({ ex, traders } = await tradingExchange(3, '1000000', { RATE_LIMIT_WEIGHT_PER_MIN: '1000000' }));
  });

  afterAll(async () => {
    await clients.closeAll();
    await ex?.close();
  });

  it('REST snapshot + @depth@100ms and @depth (250 ms) diff streams, taken mid-stream, end equal to GET depth', async () => {
    const streams = { fast: `${BTC.toLowerCase()}@depth@100ms`, slow: `${BTC.toLowerCase()}@depth` };
    const c = await clients.open(`/stream?streams=${streams.fast}/${streams.slow}`);
    const books = { fast: new LocalBook(), slow: new LocalBook() };
    const lastU = { fast: 0, slow: 0 };
    const gaps: string[] = [];
    c.ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { stream: string; data: MergedDelta };
      const which = m.stream === streams.fast ? 'fast' : 'slow';
      lastU[which] = m.data.u;
      if (books[which].onEvent(m.data) === 'gap')
        gaps.push(`${which} ${m.data.U}-${m.data.u} pu ${m.data.pu}`);
    });
    await orderStream(80, 7, async () => {
      const snapshot = await rest();
      expect(books.fast.onSnapshot(snapshot)).toBe(true);
      expect(books.slow.onSnapshot(snapshot)).toBe(true);
    });
    // Once the projection and both streams have caught up with the last change, all three agree.
    const final = await eventually(
      rest,
      (d) => d.lastUpdateId === lastU.fast && d.lastUpdateId === lastU.slow,
    );
    expect(gaps).toEqual([]);
    expect(final.lastUpdateId).toBeGreaterThan(0);
    expect(final.bids.length + final.asks.length).toBeGreaterThan(10);
    for (const book of [books.fast, books.slow])
      expect(book.top(1000)).toEqual({
        lastUpdateId: final.lastUpdateId,
        bids: final.bids,
        asks: final.asks,
      });
  });

  describe('ccxt pro binanceusdm pointed at the exchange by URL', () => {
    let pro: Awaited<ReturnType<typeof binanceUsdmPro>>;

    beforeAll(async () => {
      pro = await binanceUsdmPro(ex.url);
    });

    afterAll(async () => {
      await pro?.close();
    });

    it('watchOrderBook syncs through the diff stream and matches REST depth after more orders', async () => {
      // ccxt hands out its live book object: keep the first nonce, not the object.
      const firstNonce = (await pro.watchOrderBook(CCXT_BTC)).nonce!;
      expect(firstNonce).toBeGreaterThan(0);
      await orderStream(30, 11);
      // ccxt's own local book (what watchOrderBook hands out), copied in the same tick as a REST read
      // that carries the same update id: both views at one point of the log must be equal.
      const num = (levels: [string, string][]) => levels.map(([p, q]) => [Number(p), Number(q)]);
      const pair = await eventually(
        async () => {
          const now = await rest();
          const b = pro.orderbooks[CCXT_BTC]!;
          const copy = (side: number[][]) => side.map(([p, q]) => [p, q]);
          return { now, book: { nonce: b.nonce, bids: copy(b.bids), asks: copy(b.asks) } };
        },
        ({ now, book }) => book.nonce === now.lastUpdateId && now.lastUpdateId > firstNonce,
        30_000,
      );
      expect(pair.book.nonce).toBe(pair.now.lastUpdateId);
      expect(pair.now.lastUpdateId).toBeGreaterThan(firstNonce);
      expect(pair.book.bids).toEqual(num(pair.now.bids));
      expect(pair.book.asks).toEqual(num(pair.now.asks));
    });

    it('watchTrades, watchTicker(s), watchBidsAsks, watchOHLCV receive the trades of a crossing order', async () => {
      const trades = pro.watchTrades(CCXT_BTC);
      const bidsAsks = pro.watchBidsAsks([CCXT_BTC]);
      const ohlcv = pro.watchOHLCV(CCXT_BTC, '1m');
      const ticker = pro.watchTicker(CCXT_BTC);
      const tickers = pro.watchTickers();
      // Every subscription landed before the trade.
      const hub = ex.app.get(StreamHub);
      const keys = [
        'BTCUSDT@trade',
        'BTCUSDT@bookTicker',
        'BTCUSDT@kline_1m',
        'BTCUSDT@miniTicker',
        '!miniTicker@arr',
      ];
      // (ccxt's watchTicker takes the mini ticker by default; watchTickers without symbols, all of them.)
      expect(await eventually(async () => keys.every((k) => hub.has(k)), Boolean)).toBe(true);
      const depth = await rest();
      const [bestAsk, askQty] = depth.asks[0] as [string, string];
      const r = await signed(ex.url, '/fapi/v1/order', traders[0]!.key, {
        method: 'POST',
        params: { symbol: BTC, side: 'BUY', type: 'MARKET', quantity: askQty },
      });
      expect(r.status).toBe(200);
      const [t] = await trades;
      expect(t).toMatchObject({ symbol: CCXT_BTC, price: Number(bestAsk), side: 'buy' });
      const ba = await bidsAsks;
      expect(ba[CCXT_BTC]).toMatchObject({
        symbol: CCXT_BTC,
        bid: expect.any(Number),
        ask: expect.any(Number),
      });
      const candles = await ohlcv;
      expect(candles[candles.length - 1]).toEqual([
        expect.any(Number),
        expect.any(Number),
        expect.any(Number),
        expect.any(Number),
        expect.any(Number),
        expect.any(Number),
      ]);
      const tk = await ticker;
      const restTicker = (await http(`${ex.url}/fapi/v1/ticker/24hr?symbol=${BTC}`)).body;
      expect(tk).toMatchObject({ symbol: CCXT_BTC, last: expect.any(Number) });
      expect(tk.baseVolume).toBeGreaterThan(0);
      expect(Number(restTicker.count)).toBeGreaterThan(0);
      // !miniTicker@arr comes each second with the tickers that changed: the first may predate the trade.
      await tickers;
      const all = await eventually(
        () => pro.watchTickers(),
        (t) => t[CCXT_BTC]?.last === Number(restTicker.lastPrice),
      );
      expect(all[CCXT_BTC]).toMatchObject({ symbol: CCXT_BTC, last: Number(restTicker.lastPrice) });
    });
  });
});
