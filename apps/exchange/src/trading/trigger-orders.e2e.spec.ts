import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { signed } from '@perp/testing';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';

interface OrderView {
  orderId: string;
  status: string;
  type: string;
  origType: string;
  stopPrice: string;
  executedQty: string;
  origQty: string;
}

// New Order rule 8 over HTTP: STOP and TAKE_PROFIT orders wait in risk for the mark price, fire as
// LIMIT or MARKET orders under the same id, are cancelled like any order, and hold no margin.
describe('FAPI trigger orders (STOP, STOP_MARKET, TAKE_PROFIT, TAKE_PROFIT_MARKET)', () => {
  let ex: InProcessExchange;
  let maker: Trader;
  let t: Trader;

  const order = (who: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', who.key, { method: 'POST', params: { symbol: BTC, ...params } });
  const query = async (orderId: string) =>
    (await signed(ex.url, '/fapi/v1/order', t.key, { params: { symbol: BTC, orderId } })).body as OrderView;
  const openOrders = async (who: Trader) =>
    (await signed(ex.url, '/fapi/v1/openOrders', who.key, { params: { symbol: BTC } })).body as OrderView[];
  const available = async () =>
    ((await signed(ex.url, '/fapi/v2/account', t.key)).body as { availableBalance: string }).availableBalance;
  const positionAmt = async () => {
    const rows = (await signed(ex.url, '/fapi/v2/positionRisk', t.key, { params: { symbol: BTC } })).body as {
      positionAmt: string;
    }[];
    return rows[0]?.positionAmt ?? '0';
  };
  const mark = async (indexPrice: string) =>
    expect((await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', { indexPrice })).status).toBe(
      200,
    );
  const refused = (code: number) => ({ status: 400, body: { code, msg: expect.any(String) } });

  beforeAll(async () => {
    ex = await startInProcessExchange();
    [maker, t] = [await newTrader(ex.url), await newTrader(ex.url)];
    for (const who of [maker, t]) await deposit(ex.url, ex.adminToken, who.address, '10000');
    await mark('50000');
  });

  afterAll(async () => {
    await ex?.close();
  });

  it('stores a trigger the mark has not reached: NEW, listed, no margin frozen', async () => {
    const before = await available();
    const r = await order(t, { side: 'BUY', type: 'STOP_MARKET', stopPrice: '51000', quantity: '0.01' });
    expect(r).toMatchObject({
      status: 200,
      body: { status: 'NEW', type: 'STOP_MARKET', origType: 'STOP_MARKET', stopPrice: '51000.0' },
    });
    expect((await openOrders(t)).map((o) => o.orderId)).toContain(r.body.orderId);
    expect(await available()).toBe(before);
    expect(
      await signed(ex.url, '/fapi/v1/order', t.key, {
        method: 'DELETE',
        params: { symbol: BTC, orderId: r.body.orderId as string },
      }),
    ).toMatchObject({
      status: 200,
      body: { orderId: r.body.orderId, status: 'CANCELED', type: 'STOP_MARKET' },
    });
    expect(await openOrders(t)).toEqual([]);
  });

  it('refuses a trigger the mark already satisfies with -2021, in each direction', async () => {
    const rows: Record<string, string>[] = [
      { side: 'BUY', type: 'STOP_MARKET', stopPrice: '50000', quantity: '0.01' },
      { side: 'SELL', type: 'STOP_MARKET', stopPrice: '50100', quantity: '0.01' },
      { side: 'BUY', type: 'TAKE_PROFIT_MARKET', stopPrice: '50500', quantity: '0.01' },
      { side: 'SELL', type: 'TAKE_PROFIT', stopPrice: '49000', price: '49000', quantity: '0.01' },
      { side: 'BUY', type: 'STOP_LIMIT', stopPrice: '49990', price: '50000', quantity: '0.01' },
    ];
    for (const params of rows) {
      expect(await order(t, params)).toMatchObject(refused(-2021));
      const test = await signed(ex.url, '/fapi/v1/order/test', t.key, {
        method: 'POST',
        params: { symbol: BTC, ...params },
      });
      expect(test).toMatchObject(refused(-2021));
    }
    expect(await order(t, { side: 'BUY', type: 'STOP', price: '51000', quantity: '0.01' })).toMatchObject(
      refused(-1102),
    );
    expect(await openOrders(t)).toEqual([]);
  });

  it('a duplicate client id of a waiting trigger is -2014; allOpenOrders cancels triggers too', async () => {
    const params = { side: 'SELL', type: 'STOP_MARKET', stopPrice: '45000', quantity: '0.01' };
    expect(await order(t, { ...params, newClientOrderId: 'stop-1' })).toMatchObject({ status: 200 });
    expect(await order(t, { ...params, newClientOrderId: 'stop-1' })).toMatchObject(refused(-2014));
    expect(
      await order(t, {
        side: 'BUY',
        type: 'LIMIT',
        price: '40000',
        quantity: '0.01',
        newClientOrderId: 'stop-1',
      }),
    ).toMatchObject(refused(-2014));
    expect(
      await signed(ex.url, '/fapi/v1/allOpenOrders', t.key, { method: 'DELETE', params: { symbol: BTC } }),
    ).toMatchObject({ status: 200 });
    expect(await openOrders(t)).toEqual([]);
  });

  it('fires a STOP_MARKET when the mark rises to its stop: a MARKET fill under the same order id', async () => {
    expect(
      await order(maker, {
        side: 'SELL',
        type: 'LIMIT',
        price: '50600',
        quantity: '0.02',
        timeInForce: 'GTC',
      }),
    ).toMatchObject({ status: 200 });
    const placed = await order(t, { side: 'BUY', type: 'STOP_MARKET', stopPrice: '50400', quantity: '0.01' });
    expect(placed.status).toBe(200);
    const id = placed.body.orderId as string;
    await mark('50300'); // not yet
    expect(await query(id)).toMatchObject({ status: 'NEW', type: 'STOP_MARKET' });
    await mark('50450');
    const filled = await eventually(
      () => query(id),
      (o) => o.status === 'FILLED',
    );
    expect(filled).toMatchObject({
      status: 'FILLED',
      type: 'MARKET',
      origType: 'STOP_MARKET',
      stopPrice: '50400.0',
      executedQty: '0.010',
    });
    expect(await eventually(positionAmt, (v) => v === '0.010')).toBe('0.010');
  });

  it('fires a TAKE_PROFIT as a LIMIT at its price, which rests until it fills', async () => {
    // Long 0.01 from above; take profit: SELL when the mark rises to 50700, limit 50800.
    expect(
      await signed(ex.url, '/fapi/v1/allOpenOrders', maker.key, {
        method: 'DELETE',
        params: { symbol: BTC },
      }),
    ).toMatchObject({ status: 200 });
    const placed = await order(t, {
      side: 'SELL',
      type: 'TAKE_PROFIT',
      stopPrice: '50700',
      price: '50800',
      quantity: '0.01',
      reduceOnly: 'true',
    });
    expect(placed).toMatchObject({ status: 200, body: { type: 'TAKE_PROFIT', status: 'NEW' } });
    const id = placed.body.orderId as string;
    await mark('50750');
    const resting = await eventually(
      () => query(id),
      (o) => o.type === 'LIMIT',
    );
    expect(resting).toMatchObject({ status: 'NEW', type: 'LIMIT', origType: 'TAKE_PROFIT' });
    expect(
      await order(maker, {
        side: 'BUY',
        type: 'LIMIT',
        price: '50800',
        quantity: '0.01',
        timeInForce: 'IOC',
      }),
    ).toMatchObject({ status: 200 });
    expect(
      await eventually(
        () => query(id),
        (o) => o.status === 'FILLED',
      ),
    ).toMatchObject({
      status: 'FILLED',
      executedQty: '0.010',
    });
    expect(await eventually(positionAmt, (v) => v === '0.000' || v === '0')).toMatch(/^0(\.0+)?$/);
  });

  it('a fired order that fails pre-trade at that moment is REJECTED and holds nothing', async () => {
    // 5 BTC at 55000 at the default leverage (20) needs about 13800 of margin: more than deposited.
    const before = await available();
    const placed = await order(t, {
      side: 'BUY',
      type: 'STOP',
      stopPrice: '55000',
      price: '55000',
      quantity: '5',
    });
    expect(placed.status).toBe(200);
    const id = placed.body.orderId as string;
    await mark('55000');
    expect(
      await eventually(
        () => query(id),
        (o) => o.status === 'REJECTED',
      ),
    ).toMatchObject({
      status: 'REJECTED',
      origType: 'STOP',
    });
    expect(await openOrders(t)).toEqual([]);
    expect(await available()).toBe(before);
  });
});
