import { signed } from '@perp/testing';
import { type InProcessExchange, noInterest, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';

// selfTradePreventionMode NONE lets an order trade with the same user's resting one, as on Binance.
// Both legs are the user's: risk settles the maker's copy and then the taker's, and the engine
// splits each leg's open and close in that order, so the two copies of the position agree. (They
// once did not: the second order wedged the user's risk partition, and every user on it.)
describe('self-trade with selfTradePreventionMode NONE', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;

  const order = (t: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method: 'POST', params: { symbol: BTC, ...params } });
  const limit = (t: Trader, side: string, quantity: string, price: string) =>
    order(t, { side, type: 'LIMIT', quantity, price, timeInForce: 'GTC' });
  /** A market order that may trade with the sender's own resting orders. */
  const selfTaking = (t: Trader, side: string, quantity: string) =>
    order(t, { side, type: 'MARKET', quantity, selfTradePreventionMode: 'NONE' });
  const position = async (t: Trader) =>
    (await signed(ex.url, '/fapi/v2/positionRisk', t.key, { params: { symbol: BTC } })).body[0];

  beforeAll(async () => {
    ex = await startInProcessExchange({}, { markets: noInterest });
    a = await newTrader(ex.url);
    b = await newTrader(ex.url);
    for (const t of [a, b]) await deposit(ex.url, ex.adminToken, t.address, '10000');
    const price = await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', {
      indexPrice: '50000',
    });
    expect(price.status).toBe(200);
  });

  afterAll(async () => {
    await ex?.close();
  });

  it('from no position: both legs fill, the position stays flat, both fees are paid', async () => {
    expect((await limit(a, 'SELL', '0.002', '50000')).body).toMatchObject({ status: 'NEW' });
    const take = await selfTaking(a, 'BUY', '0.002');
    expect(take.body).toMatchObject({ status: 'FILLED', executedQty: '0.002', avgPrice: '50000' });
    const trades = await eventually(
      async () => (await signed(ex.url, '/fapi/v1/userTrades', a.key, { params: { symbol: BTC } })).body,
      (t) => t.length === 2,
    );
    // One trade, two legs of the same user: the maker's sell and the taker's buy.
    expect(
      trades.map((t: Record<string, unknown>) => [t.side, t.maker, t.qty, t.commission, t.realizedPnl]),
    ).toEqual(
      expect.arrayContaining([
        ['SELL', true, '0.002', '0.02', '0'],
        ['BUY', false, '0.002', '0.05', '0'],
      ]),
    );
    expect(trades[0].id).toBe(trades[1].id);
    expect(await position(a)).toMatchObject({ positionAmt: '0.000' });
    // The account still takes orders: its risk partition settled both legs.
    expect((await limit(a, 'BUY', '0.002', '40000')).body).toMatchObject({ status: 'NEW' });
    const account = await signed(ex.url, '/fapi/v2/account', a.key);
    expect(account.body.totalWalletBalance).toBe('9999.93000000');
  });

  it('with a position open: the maker leg closes at its price, the taker leg reopens at it', async () => {
    await limit(a, 'SELL', '0.01', '50000');
    expect((await order(b, { side: 'BUY', type: 'MARKET', quantity: '0.01' })).body).toMatchObject({
      status: 'FILLED',
    });
    await eventually(
      () => position(a),
      (p) => p.positionAmt === '-0.010',
    );
    // A buy resting from the last test is the maker this time; a sell takes it.
    const take = await selfTaking(a, 'SELL', '0.002');
    expect(take.body).toMatchObject({ status: 'FILLED', executedQty: '0.002', avgPrice: '40000' });
    // The maker's buy closes 0.002 of the short at 40000 (+20 realized), the taker's sell opens
    // 0.002 again at 40000: the same size, at the average entry (0.008 x 50000 + 0.002 x 40000) / 0.01.
    expect(await position(a)).toMatchObject({ positionAmt: '-0.010', entryPrice: '48000' });
    const solvency = await eventually(
      () => adminRequest(ex.url, ex.adminToken, '/solvency', 'GET'),
      (r) => r.body.unsettled_symbols?.length === 0,
    );
    expect(solvency.body).toMatchObject({ difference: expect.stringMatching(/^0(\.0+)?$/) });
  });
});
