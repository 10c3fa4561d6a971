import { bucketOpen } from '@perp/domain';
import { type InProcessExchange, noInterest, startInProcessExchange } from '@perp/exchange';
import { createKey, http, type HttpResponse, json, type KeyPair, login, signed } from '@perp/testing';
import ccxt from 'ccxt';
import { Wallet } from 'ethers';

const MIN = 60_000;

/** Polls `read` until `done` holds (the projections trail the engine) and returns the last value. */
async function eventually<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A known sequence of trades between four users through the embedded exchange, then the market
 * statistics as the market-data projections (hot store and Postgres) serve them.
 *
 *   1. A rests SELL 0.1 @ 50000, B buys 0.1 at market      (taker BUY 0.1)
 *   2. D rests BUY 0.05 @ 49990, C sells 0.05 at market    (taker SELL 0.05)
 *   3. D rests BUY 0.06 @ 49980, B sells 0.06 at market    (taker SELL 0.06)
 *
 * Positions: A −0.1, C −0.05 short; B +0.04, D +0.11 long. One side of the market is 0.15.
 */
describe('market statistics after a known trade sequence (embedded exchange)', () => {
  let ex: InProcessExchange;
  const users: Record<'a' | 'b' | 'c' | 'd', KeyPair> = {} as never;
  let firstTrade = 0;
  let priceTime = 0;

  const fapi = (path: string, q: Record<string, string | number> = {}) =>
    http(
      `${ex.url}${path}?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`,
    );
  const order = (k: KeyPair, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', k, { method: 'POST', params: { symbol: 'BTCUSDT', ...params } });
  const filled = async (r: Promise<HttpResponse>) =>
    expect((await r).body).toMatchObject({ status: 'FILLED' });
  const rests = async (r: Promise<HttpResponse>) => expect((await r).body).toMatchObject({ status: 'NEW' });
  const lastRow = (path: string) =>
    fapi(`/futures/data/${path}`, { symbol: 'BTCUSDT', limit: 1 }).then(
      (r) => r.body[0] as Record<string, string>,
    );

  /** Taker volume summed over the buckets from the first trade's (a boundary may split them). */
  const takerVolume = async () => {
    const from = bucketOpen('5m', firstTrade);
    const r = await fapi('/futures/data/takerlongshortRatio', { symbol: 'BTCUSDT', startTime: from });
    const rows = r.body as Record<string, string>[];
    const sum = (f: string) => rows.reduce((s, x) => s + Math.round(Number(x[f]) * 10_000), 0) / 10_000;
    return { from, rows, buyVol: sum('buyVol'), sellVol: sum('sellVol') };
  };

  beforeAll(async () => {
    // Figures at mark = index: a market without premium and interest has its index as mark.
    ex = await startInProcessExchange({}, { markets: noInterest });
    for (const name of ['a', 'b', 'c', 'd'] as const) {
      const wallet = Wallet.createRandom();
      users[name] = await createKey(ex.url, await login(ex.url, wallet));
      const address = wallet.address.toLowerCase();
      const credit = await json(
        `${ex.url}/admin/v1/deposits`,
        'POST',
        { address, asset: 'USDT', amount: '10000' },
        ex.adminToken,
      );
      expect(credit.status).toBe(200);
    }
    const price = await json(
      `${ex.url}/admin/v1/prices/BTCUSDT`,
      'POST',
      { indexPrice: '50000' },
      ex.adminToken,
    );
    expect(price.status).toBe(200);
    priceTime = price.body.time;

    firstTrade = Date.now();
    await rests(
      order(users.a, { side: 'SELL', type: 'LIMIT', price: '50000', quantity: '0.1', timeInForce: 'GTC' }),
    );
    await filled(order(users.b, { side: 'BUY', type: 'MARKET', quantity: '0.1' }));
    await rests(
      order(users.d, { side: 'BUY', type: 'LIMIT', price: '49990', quantity: '0.05', timeInForce: 'GTC' }),
    );
    await filled(order(users.c, { side: 'SELL', type: 'MARKET', quantity: '0.05' }));
    await rests(
      order(users.d, { side: 'BUY', type: 'LIMIT', price: '49980', quantity: '0.06', timeInForce: 'GTC' }),
    );
    await filled(order(users.b, { side: 'SELL', type: 'MARKET', quantity: '0.06' }));

    // The projections trail the engine: wait until both have applied the last trade.
    await eventually(
      () => fapi('/fapi/v1/openInterest', { symbol: 'BTCUSDT' }),
      (r) => r.body.openInterest === '0.300',
    );
    // Candles and statistics are written in one transaction: once the taker volume holds the last
    // trade, so do the statistics.
    await eventually(takerVolume, (v) => v.sellVol === 0.11);
  }, 30_000);
  afterAll(() => ex?.close());

  it("openInterest is both sides (0.15 + 0.15), as the native view's long_oi and short_oi", async () => {
    expect((await fapi('/fapi/v1/openInterest', { symbol: 'BTCUSDT' })).body).toEqual({
      openInterest: '0.300',
      symbol: 'BTCUSDT',
      time: expect.any(Number),
    });
    expect((await http(`${ex.url}/api/v1/open-interest/BTCUSDT`)).body).toMatchObject({
      long_oi: '0.150',
      short_oi: '0.150',
    });
  });

  it("openInterestHist's latest row agrees, valued at the last trade price (49980)", async () => {
    expect(await lastRow('openInterestHist')).toEqual({
      symbol: 'BTCUSDT',
      sumOpenInterest: '0.30000000',
      sumOpenInterestValue: '14994.00000000',
      timestamp: expect.any(String),
    });
  });

  it('long/short ratios: two accounts each way; the top 20 % (one account) is D, long', async () => {
    expect(await lastRow('globalLongShortAccountRatio')).toMatchObject({
      symbol: 'BTCUSDT',
      longShortRatio: '1.0000',
      longAccount: '0.5000',
      shortAccount: '0.5000',
    });
    const onlyLong = {
      symbol: 'BTCUSDT',
      longShortRatio: '0.0000',
      longAccount: '1.0000',
      shortAccount: '0.0000',
    };
    expect(await lastRow('topLongShortAccountRatio')).toMatchObject(onlyLong);
    expect(await lastRow('topLongShortPositionRatio')).toMatchObject(onlyLong);
  });

  it('taker volume is split by taker side: bought 0.1, sold 0.05 + 0.06', async () => {
    const { from, rows, buyVol, sellVol } = await takerVolume();
    expect(rows[0]!.timestamp).toBe(String(from));
    expect([buyVol, sellVol]).toEqual([0.1, 0.11]);
    // Every trade in one bucket (unless a 5-minute boundary fell between them): 0.1 / 0.11.
    if (rows.length === 1) expect(rows[0]!.buySellRatio).toBe('0.9091');
  });

  it('no bucket is answered before the first trade, and quiet ones carry the figures up to now', async () => {
    const from = bucketOpen('5m', firstTrade);
    const rows = (
      await fapi('/futures/data/openInterestHist', {
        symbol: 'BTCUSDT',
        startTime: from - 30 * MIN,
        limit: 500,
      })
    ).body as Record<string, string>[];
    expect(rows[0]!.timestamp).toBe(String(from));
    expect(Number(rows[rows.length - 1]!.timestamp)).toBeLessThanOrEqual(bucketOpen('5m', Date.now()));
    expect(rows[rows.length - 1]!.sumOpenInterest).toBe('0.30000000');
  });

  it('premiumIndex: mark = index = the pushed price, stamped with its time; no settlement yet', async () => {
    expect((await fapi('/fapi/v1/premiumIndex', { symbol: 'BTCUSDT' })).body).toMatchObject({
      symbol: 'BTCUSDT',
      markPrice: '50000.00000000',
      indexPrice: '50000.00000000',
      estimatedSettlePrice: '50000.00000000',
      lastFundingRate: '0.00000000',
      time: priceTime,
    });
  });

  describe('ccxt binanceusdm (public methods)', () => {
    const BTC = 'BTC/USDT:USDT';
    let c: InstanceType<typeof ccxt.binanceusdm>;

    beforeAll(async () => {
      c = new ccxt.binanceusdm();
      const api = c.urls['api'] as Record<string, string>;
      for (const name of Object.keys(api))
        if (name.startsWith('fapi')) api[name] = api[name]!.replace('https://fapi.binance.com', ex.url);
      await c.loadMarkets();
    });

    it('fetchOpenInterest and fetchOpenInterestHistory', async () => {
      expect(await c.fetchOpenInterest(BTC)).toMatchObject({ symbol: BTC, openInterestAmount: 0.3 });
      const history = await c.fetchOpenInterestHistory(BTC, '5m', bucketOpen('5m', firstTrade));
      expect(history[0]).toMatchObject({ symbol: BTC, timestamp: bucketOpen('5m', firstTrade) });
      expect(history[history.length - 1]).toMatchObject({
        openInterestAmount: 0.3,
        openInterestValue: 14994,
      });
    });

    it('fetchMarkPrice(s), fetchFundingRate(s), fetchFundingRateHistory, fetchFundingIntervals', async () => {
      expect(await c.fetchMarkPrice(BTC)).toMatchObject({ symbol: BTC, markPrice: 50000, indexPrice: 50000 });
      expect(Object.keys(await c.fetchMarkPrices())).toEqual(expect.arrayContaining([BTC, 'ETH/USDT:USDT']));
      const rate = await c.fetchFundingRate(BTC);
      expect(rate).toMatchObject({ symbol: BTC, markPrice: 50000, indexPrice: 50000, fundingRate: 0 });
      expect(rate.fundingTimestamp! % (8 * 3_600_000)).toBe(0);
      expect(Object.keys(await c.fetchFundingRates())).toHaveLength(3);
      expect(await c.fetchFundingRateHistory(BTC)).toEqual([]);
      expect((await c.fetchFundingIntervals())[BTC]).toMatchObject({ symbol: BTC, interval: '8h' });
    });

    it('fetchLongShortRatioHistory', async () => {
      const rows = await c.fetchLongShortRatioHistory(BTC, '5m', bucketOpen('5m', firstTrade));
      expect(rows[rows.length - 1]).toMatchObject({ symbol: BTC, longShortRatio: 1 });
    });
  });
});
