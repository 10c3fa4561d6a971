import { HOT_STORE, type HotStore } from '@perp/cache';
import { BOOK_TOP_KEY, CANDLES_VERSION_KEY, DEPTH_KEY, TICKER_KEY } from '@perp/contracts';
import { type InProcessExchange, noInterest, startInProcessExchange } from '@perp/exchange';
import { createKey, http, json, type KeyPair, login, signed } from '@perp/testing';
import { Wallet } from 'ethers';
import { KLINE_CACHE_MS } from '../market/kline-reader';

jest.setTimeout(60_000);

const BTC = 'BTCUSDT';
const PATHS = {
  ticker: `/fapi/v1/ticker/24hr?symbol=${BTC}`,
  price: `/fapi/v1/ticker/price?symbol=${BTC}`,
  bookTicker: `/fapi/v1/ticker/bookTicker?symbol=${BTC}`,
  depth: `/fapi/v1/depth?symbol=${BTC}&limit=5`,
  klines: `/fapi/v1/klines?symbol=${BTC}&interval=1m&limit=5`,
};
/** The hot-store key each read depends on (what it would read again). */
const KEYS: Record<keyof typeof PATHS, string> = {
  ticker: TICKER_KEY(BTC),
  price: TICKER_KEY(BTC),
  bookTicker: BOOK_TOP_KEY(BTC),
  depth: DEPTH_KEY(BTC),
  klines: CANDLES_VERSION_KEY(BTC),
};
const TIMES = /"(E|T)":\d+/g;

// The embedded exchange's hot store is in the process: the public read lanes give a kept answer
// again with no read while the projection it was made from is unchanged, and read again once the
// market-data service wrote a change.
describe('public read lanes: kept answers while the projection is unchanged (embedded)', () => {
  let ex: InProcessExchange;
  let maker: KeyPair;
  let taker: KeyPair;
  let reads: jest.SpyInstance[];

  /** The lane's answer, and the same request through Fastify and Nest (a percent-encoded query). */
  const answers = async (path: string) => {
    const text = async (p: string) => {
      const r = await fetch(`${ex.url}${p}`);
      expect(r.status).toBe(200);
      return (await r.text()).replace(TIMES, '"$1":0');
    };
    return { lane: await text(path), nest: await text(path.replace('USDT', '%55SDT')) };
  };
  /** Hot-store reads of `key` since the spies were last cleared. */
  const readsOf = (key: string) => reads.flatMap((s) => s.mock.calls).filter((c) => c[0] === key).length;
  const order = async (key: KeyPair, params: Record<string, string>) => {
    const r = await signed(ex.url, '/fapi/v1/order', key, {
      method: 'POST',
      params: { symbol: BTC, ...params },
    });
    expect(r.status).toBe(200);
  };
  const trader = async () => {
    const wallet = Wallet.createRandom();
    const key = await createKey(ex.url, await login(ex.url, wallet));
    const deposit = { address: wallet.address.toLowerCase(), asset: 'USDT', amount: '100000' };
    expect((await json(`${ex.url}/admin/v1/deposits`, 'POST', deposit, ex.adminToken)).status).toBe(200);
    return key;
  };
  /** The candles' version: market-data writes it last in a turn, after every other projection. */
  const candlesVersion = () =>
    ex.app.get<HotStore>(HOT_STORE, { strict: false }).get(CANDLES_VERSION_KEY(BTC));
  /** Places a taker order and waits until every projection of its trade is written. */
  const trade = async (n: number) => {
    const before = await candlesVersion();
    await order(taker, { side: 'BUY', type: 'MARKET', quantity: '0.001' });
    for (let i = 0; i < 400; i++) {
      const { count } = (await http(`${ex.url}${PATHS.ticker}`)).body as { count: number };
      if (count === n && (await candlesVersion()) !== before) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`the projections never held trade ${n}`);
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({}, { markets: noInterest });
    [maker, taker] = [await trader(), await trader()];
    const price = { indexPrice: '50000' };
    expect((await json(`${ex.url}/admin/v1/prices/${BTC}`, 'POST', price, ex.adminToken)).status).toBe(200);
    await order(maker, { side: 'SELL', type: 'LIMIT', price: '50000', quantity: '0.010' });
    await trade(1);
    const hot = ex.app.get<HotStore>(HOT_STORE, { strict: false });
    reads = (['get', 'hget', 'hgetall'] as const).map((m) => jest.spyOn(hot, m));
  });
  afterAll(() => ex?.close());

  it.each(Object.keys(PATHS) as (keyof typeof PATHS)[])(
    '%s: given again with no read, the same as the Nest route, until a trade changes it',
    async (name) => {
      const path = PATHS[name];
      // A kept klines body lasts KLINE_CACHE_MS and its bucket: on a loaded machine the two rounds
      // may outlast that, which rightly reads again, so such an attempt is made again once the
      // answer it kept has lapsed (an attempt's window opens with its first request).
      const inOneWindow = (t0: number, t1: number) =>
        t1 - t0 < KLINE_CACHE_MS && Math.floor(t0 / 60_000) === Math.floor(t1 / 60_000);
      let first: { lane: string; nest: string };
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, KLINE_CACHE_MS));
        const t0 = Date.now();
        first = await answers(path);
        expect(first.lane).toBe(first.nest);
        reads.forEach((s) => s.mockClear());
        const again = await answers(path);
        expect(again.lane).toBe(first.lane);
        if (!inOneWindow(t0, Date.now()) && attempt < 20) continue;
        // The Nest route read the key once; the lane did not.
        expect(readsOf(KEYS[name])).toBe(1);
        break;
      }

      const { count } = (await http(`${ex.url}${PATHS.ticker}`)).body as { count: number };
      await trade(count + 1);
      // The projections of one trade are written one after another: wait for this one's.
      let after = await answers(path);
      for (let i = 0; i < 400 && after.lane === first.lane; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        after = await answers(path);
      }
      expect(after.lane).not.toBe(first.lane);
      expect(after.lane).toBe(after.nest);
    },
  );
});
