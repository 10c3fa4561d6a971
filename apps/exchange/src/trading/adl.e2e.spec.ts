import { signed } from '@perp/testing';
import { Wallet } from 'ethers';
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
});
