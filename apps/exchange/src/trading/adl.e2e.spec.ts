import { json, login, signed } from '@perp/testing';
import { type BaseWallet, Wallet } from 'ethers';
import { type InProcessExchange, noInterest, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';

interface TradeRow {
  price: string;
  qty: string;
  side: string;
  commission: string;
  realizedPnl: string;
}

// A mark move liquidates a user with no liquidity on the book and nothing in the insurance fund:
// the winning counterparty first in the ADL queue is auto-deleveraged at the bankruptcy price.
// Every figure by hand.
describe('auto-deleveraging (embedded exchange over HTTP)', () => {
  let ex: InProcessExchange;
  // a: the long liquidated; b: short with a small wallet (first in line); c: short with a large one;
  // d: c's long, well funded.
  let a: Trader;
  let b: Trader;
  let c: Trader;
  let d: Trader;
  // b's wallet: the native ADL history wants its JWT.
  let walletB: BaseWallet;

  const index = async (indexPrice: string) => {
    const r = await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', { indexPrice });
    expect(r.status).toBe(200);
    return (r.body as { markPrice: string }).markPrice;
  };
  const order = (t: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method: 'POST', params: { symbol: BTC, ...params } });
  const get = (t: Trader, path: string, params: Record<string, string> = {}) =>
    signed(ex.url, path, t.key, { method: 'GET', params });
  const wallet = async (t: Trader) =>
    ((await get(t, '/fapi/v2/balance')).body as { asset: string; balance: string }[]).find(
      (x) => x.asset === 'USDT',
    )?.balance;
  const position = async (t: Trader) =>
    Number(
      ((await get(t, '/fapi/v2/positionRisk', { symbol: BTC })).body as { positionAmt: string }[])[0]
        ?.positionAmt ?? '0',
    );
  const trades = async (t: Trader) =>
    ((await get(t, '/fapi/v1/userTrades', { symbol: BTC })).body as TradeRow[]).map((x) => [
      x.side,
      x.price,
      x.qty,
      x.commission,
      x.realizedPnl,
    ]);
  /** `seller` rests 0.1 at 50000 (maker 0.02 %: 1), `buyer` takes it (taker 0.05 %: 2.5). */
  const trade = async (seller: Trader, buyer: Trader) => {
    const ask = { side: 'SELL', type: 'LIMIT', price: '50000', quantity: '0.1', timeInForce: 'GTC' };
    expect((await order(seller, ask)).status).toBe(200);
    expect((await order(buyer, { side: 'BUY', type: 'MARKET', quantity: '0.1' })).body).toMatchObject({
      status: 'FILLED',
    });
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({}, { markets: noInterest });
    // b's address sorts after c's: without the scores, the queue (by address) would take c first.
    const [wb, wc] = [Wallet.createRandom(), Wallet.createRandom()].sort((x, y) =>
      x.address.toLowerCase() < y.address.toLowerCase() ? 1 : -1,
    );
    a = await newTrader(ex.url);
    walletB = wb!;
    b = await newTrader(ex.url, wb);
    c = await newTrader(ex.url, wc);
    d = await newTrader(ex.url);
    await deposit(ex.url, ex.adminToken, a.address, '1000');
    await deposit(ex.url, ex.adminToken, b.address, '1000');
    await deposit(ex.url, ex.adminToken, c.address, '10000');
    await deposit(ex.url, ex.adminToken, d.address, '10000');
  }, 60_000);

  afterAll(async () => {
    await ex?.close();
  });

  it('closes the bankrupt long against the first short in line at the bankruptcy price, fee-free', async () => {
    expect(await index('50000')).toBe('50000');
    await trade(b, a);
    await trade(c, d);
    expect(
      await eventually(
        () => wallet(a),
        (v) => v === '997.50000000',
      ),
    ).toBe('997.50000000');
    expect(
      await eventually(
        () => wallet(c),
        (v) => v === '9999.00000000',
      ),
    ).toBe('9999.00000000');

    // Mark 45000 ranks the shorts: both +500, maintenance 0.1 x 45000 x 0.004 = 18.
    // b: 500 / 999 x 18 / 1499 ≈ 0.00601; c: 500 / 9999 x 18 / 10499 ≈ 0.0000857: b is first.
    expect(await index('45000')).toBe('45000');
    // a: margin balance 997.5 + 0.1 x (M - 50000) against maintenance 0.1 x M x 0.004: liquidated
    // at M <= 40185.7. Bankruptcy (0.1 x 50000 - 997.5) / 0.1 = 40025. The book is empty and the
    // fund holds nothing: the liquidation fills nothing and ADL closes all 0.1 against b at 40025.
    expect(await index('40100')).toBe('40100');
    expect(
      await eventually(
        () => position(a),
        (v) => v === 0,
      ),
    ).toBe(0);
    expect(
      await eventually(
        () => position(b),
        (v) => v === 0,
      ),
    ).toBe(0);
    expect([await position(c), await position(d)]).toEqual([-0.1, 0.1]);
    // a: 997.5 - 0.1 x (50000 - 40025) = 0; b: 999 + 997.5; nobody pays a fee on an ADL close.
    expect(
      await eventually(
        () => wallet(a),
        (v) => v === '0.00000000',
      ),
    ).toBe('0.00000000');
    expect(
      await eventually(
        () => wallet(b),
        (v) => v === '1996.50000000',
      ),
    ).toBe('1996.50000000');
    expect([await wallet(c), await wallet(d)]).toEqual(['9999.00000000', '9997.50000000']);
  }, 60_000);

  it('both sides see the close in userTrades; it is no public trade; open interest is what is left', async () => {
    expect(await trades(a)).toEqual([
      ['BUY', '50000.0', '0.100', '2.5', '0'],
      ['SELL', '40025.0', '0.100', '0', '-997.5'],
    ]);
    expect(await trades(b)).toEqual([
      ['SELL', '50000.0', '0.100', '1', '0'],
      ['BUY', '40025.0', '0.100', '0', '997.5'],
    ]);
    const pub = (await (await fetch(`${ex.url}/fapi/v1/trades?symbol=${BTC}`)).json()) as { price: string }[];
    expect(pub.map((t) => t.price)).toEqual(['50000.0', '50000.0']);
    // c's short against d's long: 0.1 each side (FAPI's openInterest is long + short).
    const oi = await eventually(
      async () =>
        (await fetch(`${ex.url}/fapi/v1/openInterest?symbol=${BTC}`)).json() as Promise<{
          openInterest: string;
        }>,
      (v) => Number(v.openInterest) === 0.2,
    );
    expect(Number(oi.openInterest)).toBe(0.2);
    expect(await (await fetch(`${ex.url}/api/v1/open-interest/${BTC}`)).json()).toMatchObject({
      long_oi: '0.100',
      short_oi: '0.100',
    });
  }, 30_000);

  it('the close is a force order on both sides, an ADL event, in b’s ADL history; quantiles and solvency after it', async () => {
    const force = async (t: Trader) => {
      const r = await get(t, '/fapi/v1/forceOrders');
      expect(r.status).toBe(200);
      return r.body as Record<string, unknown>[];
    };
    // a: the liquidation order, all of it filled by ADL at the bankruptcy price (no fee: ADL).
    const [liq, ...moreA] = await force(a);
    expect(moreA).toEqual([]);
    expect(liq).toEqual({
      orderId: expect.any(String),
      symbol: BTC,
      status: 'FILLED',
      clientOrderId: `autoclose-${String(liq!.orderId)}`,
      price: '40025.0',
      avgPrice: '40025',
      origQty: '0.100',
      executedQty: '0.100',
      cumQuote: '4002.5',
      timeInForce: 'IOC',
      type: 'LIQUIDATION',
      reduceOnly: true,
      closePosition: false,
      side: 'SELL',
      positionSide: 'BOTH',
      stopPrice: '0',
      workingType: 'CONTRACT_PRICE',
      origType: 'LIMIT',
      time: expect.any(Number),
      updateTime: expect.any(Number),
    });
    // b: the ADL close of its short, bought back at the bankruptcy price.
    const [adl, ...moreB] = await force(b);
    expect(moreB).toEqual([]);
    expect(adl).toEqual({
      ...liq,
      orderId: expect.any(String),
      clientOrderId: `adl_autoclose-${String(adl!.orderId)}`,
      timeInForce: 'GTC',
      side: 'BUY',
      time: expect.any(Number),
      updateTime: expect.any(Number),
    });
    expect((await get(b, '/fapi/v1/forceOrders', { autoCloseType: 'LIQUIDATION' })).body).toEqual([]);
    expect((await get(a, '/fapi/v1/forceOrders', { autoCloseType: 'ADL' })).body).toEqual([]);
    for (const t of [c, d]) expect(await force(t)).toEqual([]);

    const adlRow = { symbol: BTC, side: 'BUY', position_side: 'SHORT', price: '40025.0', quantity: '0.100' };
    const events = await json(`${ex.url}/api/v1/adl/${BTC}/events`, 'GET');
    expect([events.status, events.body]).toEqual([200, [{ ...adlRow, time: adl!.time }]]);
    const history = await json(
      `${ex.url}/api/v1/adl/history`,
      'GET',
      undefined,
      await login(ex.url, walletB),
    );
    expect([history.status, history.body]).toEqual([
      200,
      { items: [{ order_id: adl!.orderId, ...adlRow, time: adl!.time }], page: 1, limit: 50, total: 1 },
    ]);

    // Left: c's short and d's long, each alone on its side, so first in line: quantile 5.
    const quantile = (t: Trader) =>
      eventually(
        async () => (await get(t, '/fapi/v1/adlQuantile', { symbol: BTC })).body,
        (v) => JSON.stringify(v).includes('"BOTH":5'),
      );
    expect(await quantile(c)).toEqual([{ symbol: BTC, adlQuantile: { LONG: 0, SHORT: 5, BOTH: 5 } }]);
    expect(await quantile(d)).toEqual([{ symbol: BTC, adlQuantile: { LONG: 5, SHORT: 0, BOTH: 5 } }]);
    for (const t of [a, b])
      expect((await get(t, '/fapi/v1/adlQuantile', { symbol: BTC })).body).toEqual([
        { symbol: BTC, adlQuantile: { LONG: 0, SHORT: 0, BOTH: 0 } },
      ]);

    // Deposits 22000; fees 2 x (1 + 2.5) = 7 and no insurance movement; c/d open at 50000 are worth 0.
    const solvency = await eventually(
      () => adminRequest(ex.url, ex.adminToken, '/solvency', 'GET'),
      (r) => r.body?.unsettled_symbols?.length === 0,
    );
    expect([solvency.status, solvency.body]).toMatchObject([
      200,
      {
        deposits: '22000',
        wallets: '21993',
        open_position_pnl: '0',
        fees: '7',
        insurance_fund: '0',
        difference: '0',
      },
    ]);
  }, 30_000);
});
