import { signed } from '@perp/testing';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, ccxtClient, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';
const MIN = 60_000;
// The funding time the test passes: a minute boundary ahead of the clock (times are the pushes' own).
const T = Math.floor(Date.now() / MIN) * MIN + 10 * MIN;

// Two users hold opposite positions, the book sits above the index, a funding time passes: every
// figure below is computed by hand from the rules of libs/domain/src/funding/README.md.
describe('funding on a one-minute chain (embedded exchange over HTTP)', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;

  const admin = (path: string, body: unknown) => adminRequest(ex.url, ex.adminToken, path, 'POST', body);
  const index = async (indexPrice: string, time: number) => {
    const r = await admin(`/prices/${BTC}`, { indexPrice, time });
    expect(r.status).toBe(200);
    return r.body as { markPrice: string };
  };
  const order = (t: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method: 'POST', params });
  const get = (t: Trader, path: string, params: Record<string, string> = {}) =>
    signed(ex.url, path, t.key, { method: 'GET', params });
  const publicGet = (path: string): Promise<unknown> =>
    fetch(`${ex.url}/fapi/v1/${path}`).then((r) => r.json());
  const wallet = async (t: Trader) =>
    ((await get(t, '/fapi/v2/balance')).body as { asset: string; balance: string }[]).find(
      (x) => x.asset === 'USDT',
    )?.balance;

  beforeAll(async () => {
    // BTCUSDT funds every minute (1 … 1440 minutes are accepted).
    ex = await startInProcessExchange(
      {},
      {
        markets: (m) => {
          if (m.symbol === BTC) m.fundingIntervalMinutes = 1;
        },
      },
    );
    a = await newTrader(ex.url);
    b = await newTrader(ex.url);
    await deposit(ex.url, ex.adminToken, a.address, '10000');
    await deposit(ex.url, ex.adminToken, b.address, '10000');
  }, 60_000);

  afterAll(async () => {
    await ex?.close();
  });

  it('derives the mark from the index, the book and the last price, and pays the round exactly once', async () => {
    // Slot 1 of the interval ending at T: an empty book, so premium 0; no trade, so mark = price 1
    // = 50000 × (1 + I × 59 s / 60 s) with I = 0.0000125 / 60 → 0.00000021 (8 decimals).
    expect((await index('50000', T - 59_000)).markPrice).toBe('50000.010325');
    // B buys 0.1 from A at 50500: fees 0.02 % maker (1.01), 0.05 % taker (2.525).
    expect(
      (
        await order(a, {
          symbol: BTC,
          side: 'SELL',
          type: 'LIMIT',
          price: '50500',
          quantity: '0.1',
          timeInForce: 'GTC',
        })
      ).status,
    ).toBe(200);
    expect(
      (await order(b, { symbol: BTC, side: 'BUY', type: 'MARKET', quantity: '0.1' })).body,
    ).toMatchObject({ status: 'FILLED' });
    // The book above the index: bids of 25,200 USDT at 50400 fill the impact notional (200 × 125x);
    // the ask side (506 USDT) cannot, so it adds nothing to the premium.
    expect(
      (
        await order(a, {
          symbol: BTC,
          side: 'BUY',
          type: 'LIMIT',
          price: '50400',
          quantity: '0.5',
          timeInForce: 'GTC',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await order(b, {
          symbol: BTC,
          side: 'SELL',
          type: 'LIMIT',
          price: '50600',
          quantity: '0.01',
          timeInForce: 'GTC',
        })
      ).status,
    ).toBe(200);
    // The projected book and last price are what the mark stage reads.
    const projected = await eventually(
      async () => {
        const depth = (await publicGet(`depth?symbol=${BTC}`)) as { bids: unknown[]; asks: unknown[] };
        const last = (await publicGet(`ticker/price?symbol=${BTC}`)) as { price: string };
        return [depth.bids, depth.asks, last.price] as const;
      },
      ([bids, asks, last]) => bids.length === 1 && asks.length === 1 && last === '50500.0',
    );
    expect(projected).toEqual([[['50400.0', '0.500']], [['50600.0', '0.010']], '50500.0']);

    // Slot 12: premium (50400 − 50000) / 50000 = 0.008. Weighted average (1 × 0 + 12 × 0.008) / 13
    // = 0.0073846153…; rate = P + clamp(I − P, ±0.0005) = 0.0068846153… → 0.00688462.
    // Mark = median(price 1 ≈ 50028.69, index + basis 50000 + 500, last 50500) = 50500.
    expect((await index('50000', T - 5_000)).markPrice).toBe('50500');
    // A tick past T settles the round: rate 0.00688462 at the last mark before it, 50500.
    expect((await index('50000', T + 1_000)).markPrice).toBe('50500');

    // 0.1 × 50500 × 0.00688462 = 34.767331: the long pays it, the short receives it.
    expect(
      await eventually(
        () => wallet(a),
        (v) => v === '10033.75733100',
      ),
    ).toBe('10033.75733100');
    expect(await wallet(b)).toBe('9962.70766900');
    // Later ticks of the same interval settle nothing again.
    await index('50000', T + 2_000);
    expect([await wallet(a), await wallet(b)]).toEqual(['10033.75733100', '9962.70766900']);
  }, 60_000);

  it('income and fundingFeeHistory carry the payment under the round id; fundingRate records the round', async () => {
    const id = `funding/${BTC}/${T}`;
    const fee = (income: string) => ({
      symbol: BTC,
      incomeType: 'FUNDING_FEE',
      income,
      asset: 'USDT',
      info: '0.00688462',
      time: T,
      tranId: id,
      tradeId: id,
    });
    const income = async (t: Trader) =>
      eventually(
        () => get(t, '/fapi/v1/income', { incomeType: 'FUNDING_FEE' }).then((r) => r.body as unknown[]),
        (rows) => rows.length > 0,
      );
    expect(await income(a)).toEqual([fee('34.767331')]);
    expect(await income(b)).toEqual([fee('-34.767331')]);
    expect((await get(b, '/fapi/v1/fundingFeeHistory', { symbol: BTC })).body).toEqual([
      expect.objectContaining({ ...fee('-34.767331'), fundingRate: expect.stringMatching(/^0\.00688462/) }),
    ]);
    const rates = await publicGet(`fundingRate?symbol=${BTC}`);
    expect(rates).toEqual([
      { symbol: BTC, fundingRate: '0.00688462', fundingTime: T, markPrice: '50500.00000000' },
    ]);
  });

  it("premiumIndex shows the derived mark and the new interval's estimated rate", async () => {
    // After T: one sample of 0.008 → 0.008 − 0.0005 = 0.0075.
    const r = await publicGet(`premiumIndex?symbol=${BTC}`);
    expect(r).toMatchObject({
      symbol: BTC,
      markPrice: '50500.00000000',
      indexPrice: '50000.00000000',
      estimatedSettlePrice: '50500.00000000',
      lastFundingRate: '0.00750000',
      interestRate: '0.00001250',
      time: T + 2_000,
    });
  });

  it('ccxt binanceusdm reads funding rates, their history, the funding fees and mark prices', async () => {
    const c = ccxtClient(ex.url, b);
    const sym = 'BTC/USDT:USDT';
    const rate = await c.fetchFundingRate(sym);
    expect(rate).toMatchObject({ symbol: sym, markPrice: 50500, indexPrice: 50000, fundingRate: 0.0075 });
    expect(Object.keys(await c.fetchFundingRates())).toContain(sym);
    const history = await c.fetchFundingRateHistory(sym);
    expect(history.map((h) => [h.symbol, h.fundingRate, h.timestamp])).toEqual([[sym, 0.00688462, T]]);
    const fees = await c.fetchFundingHistory(sym);
    expect(fees.map((f) => [f.symbol, f.amount, f.code, f.timestamp, f.id])).toEqual([
      [sym, -34.767331, 'USDT', T, `funding/${BTC}/${T}`],
    ]);
    const mark = await c.fetchMarkPrice(sym);
    expect(mark).toMatchObject({ symbol: sym, markPrice: 50500, indexPrice: 50000 });
    expect(Object.keys(await c.fetchMarkPrices())).toContain(sym);
  }, 60_000);

  it('native funding-rates: the rate in force, the estimate, interval, cap and floor, open interest per side', async () => {
    const r = await fetch(`${ex.url}/api/v1/funding-rates/btc-usd`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body).toEqual({
      symbol: BTC,
      funding_rate: '0.00688462',
      funding_time: new Date(T).toISOString(),
      predicted_funding_rate: '0.00750000',
      next_funding_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      funding_interval_minutes: 1,
      funding_rate_cap: '0.02000000',
      funding_rate_floor: '-0.02000000',
      interest_rate: '0.00001250',
      mark_price: expect.stringMatching(/^50500(\.0+)?$/),
      index_price: expect.stringMatching(/^50000(\.0+)?$/),
      long_oi: '0.100',
      short_oi: '0.100',
      // 0.1 × 50500 and the 10,000 BTC caps at the mark
      long_oi_usd: '5050.00000000',
      short_oi_usd: '5050.00000000',
      max_long_oi: '10000',
      max_short_oi: '10000',
      max_long_oi_usd: '505000000.00000000',
      max_short_oi_usd: '505000000.00000000',
    });
    const missing = await fetch(`${ex.url}/api/v1/funding-rates/DOGE-USD`);
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { error: expect.any(String), code: 'INVALID_MARKET' },
    ]);
  });

  it('native markets carry the mark, index and estimated funding rate', async () => {
    const markets = (await fetch(`${ex.url}/api/v1/markets`).then((r) => r.json())) as Record<
      string,
      unknown
    >[];
    expect(markets.find((m) => m.symbol === BTC)).toMatchObject({
      mark_price: expect.stringMatching(/^50500(\.0+)?$/),
      index_price: expect.stringMatching(/^50000(\.0+)?$/),
      funding_rate: '0.00750000',
      next_funding_time: expect.any(String),
    });
    expect(markets.find((m) => m.symbol === 'SOLUSDT')).toMatchObject({
      mark_price: null,
      funding_rate: null,
    });
  });
});
