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
    const rest = await order(a, {
      side: 'SELL',
      type: 'LIMIT',
      quantity: '0.002',
      price: '50000',
      timeInForce: 'GTC',
    });
    expect(rest.body).toMatchObject({ status: 'NEW' });
    const take = await order(a, {
      side: 'BUY',
      type: 'MARKET',
      quantity: '0.002',
      selfTradePreventionMode: 'NONE',
    });
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
    const next = await order(a, {
      side: 'BUY',
      type: 'LIMIT',
      quantity: '0.002',
      price: '40000',
      timeInForce: 'GTC',
    });
    expect(next.body).toMatchObject({ status: 'NEW' });
    const account = await signed(ex.url, '/fapi/v2/account', a.key);
    expect(account.body.totalWalletBalance).toBe('9999.93000000');
  });

  it('with a position open: the maker leg closes at its price, the taker leg reopens at it', async () => {
    await order(a, { side: 'SELL', type: 'LIMIT', quantity: '0.01', price: '50000', timeInForce: 'GTC' });
    expect((await order(b, { side: 'BUY', type: 'MARKET', quantity: '0.01' })).body).toMatchObject({
      status: 'FILLED',
    });
    await eventually(
      () => position(a),
      (p) => p.positionAmt === '-0.010',
    );
    // A buy resting from the last test is the maker this time; a sell takes it.
    const take = await order(a, {
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.002',
      selfTradePreventionMode: 'NONE',
    });
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
