import { signed } from '@perp/testing';
import { type InProcessExchange, noInterest, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';

interface PositionRow {
  positionAmt: string;
}

// A mark move liquidates a user with no liquidity on the book and nothing in the insurance fund:
// the winning counterparty is auto-deleveraged at the bankruptcy price. Every figure by hand.
describe('auto-deleveraging (embedded exchange over HTTP)', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;

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
    ((await get(t, '/fapi/v2/positionRisk', { symbol: BTC })).body as PositionRow[])[0]?.positionAmt ?? '0';

  beforeAll(async () => {
    ex = await startInProcessExchange({}, { markets: noInterest });
    a = await newTrader(ex.url);
    b = await newTrader(ex.url);
    await deposit(ex.url, ex.adminToken, a.address, '1000');
    await deposit(ex.url, ex.adminToken, b.address, '10000');
  }, 60_000);

  afterAll(async () => {
    await ex?.close();
  });

  it('closes the bankrupt long against the short at the bankruptcy price; nobody is charged a fee', async () => {
    expect(await index('50000')).toBe('50000');
    // B sells 0.1 at 50000 to A: B pays 0.02 % maker (1), A 0.05 % taker (2.5).
    expect(
      (await order(b, { side: 'SELL', type: 'LIMIT', price: '50000', quantity: '0.1', timeInForce: 'GTC' }))
        .status,
    ).toBe(200);
    expect((await order(a, { side: 'BUY', type: 'MARKET', quantity: '0.1' })).body).toMatchObject({
      status: 'FILLED',
    });
    expect(
      await eventually(
        () => wallet(a),
        (v) => v === '997.50000000',
      ),
    ).toBe('997.50000000');
    expect(await wallet(b)).toBe('9999.00000000');

    // A: margin balance 997.5 + 0.1 x (M - 50000) against maintenance 0.1 x M x 0.004: liquidated
    // at M <= 40185.7. Bankruptcy (0.1 x 50000 - 997.5) / 0.1 = 40025. The book is empty and the
    // fund holds nothing: the liquidation fills nothing and ADL closes all 0.1 against B at 40025.
    expect(await index('40100')).toBe('40100');
    expect(
      await eventually(
        () => position(a),
        (v) => Number(v) === 0,
      ),
    ).toMatch(/^0(\.0+)?$/);
    expect(
      await eventually(
        () => position(b),
        (v) => Number(v) === 0,
      ),
    ).toMatch(/^0(\.0+)?$/);
    // A: 997.5 - 0.1 x (50000 - 40025) = 0; B: 9999 + 997.5, no fee on either side of an ADL close.
    expect(
      await eventually(
        () => wallet(a),
        (v) => v === '0.00000000',
      ),
    ).toBe('0.00000000');
    expect(
      await eventually(
        () => wallet(b),
        (v) => v === '10996.50000000',
      ),
    ).toBe('10996.50000000');
  }, 60_000);

  it('both see the ADL close in userTrades at the bankruptcy price; long OI = short OI = 0', async () => {
    const trades = (await get(b, '/fapi/v1/userTrades', { symbol: BTC })).body as {
      price: string;
      qty: string;
      side: string;
      commission: string;
      realizedPnl: string;
    }[];
    expect(trades.map((t) => [t.side, t.price, t.qty, t.commission, t.realizedPnl])).toEqual([
      ['SELL', '50000.0', '0.100', '1', '0'],
      ['BUY', '40025.0', '0.100', '0', '997.5'],
    ]);
    const mine = (await get(a, '/fapi/v1/userTrades', { symbol: BTC })).body as typeof trades;
    expect(mine.map((t) => [t.side, t.price, t.qty, t.commission, t.realizedPnl])).toEqual([
      ['BUY', '50000.0', '0.100', '2.5', '0'],
      ['SELL', '40025.0', '0.100', '0', '-997.5'],
    ]);
    const oi = await eventually(
      async () =>
        (await fetch(`${ex.url}/fapi/v1/openInterest?symbol=${BTC}`)).json() as Promise<{
          openInterest: string;
        }>,
      (v) => Number(v.openInterest) === 0,
    );
    expect(Number(oi.openInterest)).toBe(0);
    // Not a public trade: the market's trades show only the opening one.
    const pub = (await (await fetch(`${ex.url}/fapi/v1/trades?symbol=${BTC}`)).json()) as { price: string }[];
    expect(pub.map((t) => t.price)).toEqual(['50000.0']);
  }, 30_000);
});
