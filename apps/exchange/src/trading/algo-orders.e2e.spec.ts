import type ccxt from 'ccxt';
import { PERSISTENCE_DATA_SOURCE } from '@perp/persistence';
import { json, login, signed } from '@perp/testing';
import type { DataSource } from 'typeorm';
import { Wallet } from 'ethers';
import { type InProcessExchange, noInterest, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, ccxtClient, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';
const CCXT_BTC = 'BTC/USDT:USDT';
/** The keeper's clock runs this far ahead, so a GTD order (at least 600 s ahead) expires at once. */
const CLOCK_SKEW_MS = 700_000;

interface AlgoView {
  algoId: number;
  clientAlgoId: string;
  algoStatus: string;
  orderType: string;
  triggerPrice: string;
  activatePrice: string | null;
  callbackRate: string | null;
  actualOrderId: string;
  triggerTime: number;
  quantity: string;
}

// Algo orders over HTTP on the embedded exchange, marks driven by admin index pushes (mark = index
// until premium marks land), GTD expiry driven by the keeper's clock ticks on the log.
describe('FAPI algo orders (conditional, trailing, GTD, closePosition)', () => {
  let ex: InProcessExchange;
  let maker: Trader;

  const algo = (who: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/algoOrder', who.key, { method: 'POST', params: { symbol: BTC, ...params } });
  const algoQuery = async (who: Trader, algoId: number) =>
    (await signed(ex.url, '/fapi/v1/algoOrder', who.key, { params: { algoId: String(algoId) } }))
      .body as AlgoView;
  const order = (who: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', who.key, { method: 'POST', params: { symbol: BTC, ...params } });
  const orderQuery = async (who: Trader, orderId: string) =>
    (await signed(ex.url, '/fapi/v1/order', who.key, { params: { symbol: BTC, orderId } })).body as Record<
      string,
      unknown
    >;
  const positionAmt = async (who: Trader) => {
    const rows = (await signed(ex.url, '/fapi/v2/positionRisk', who.key, { params: { symbol: BTC } }))
      .body as {
      positionAmt: string;
    }[];
    return Number(rows[0]?.positionAmt ?? '0');
  };
  const mark = async (indexPrice: string) =>
    expect((await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', { indexPrice })).status).toBe(
      200,
    );
  const funded = async () => {
    const t = await newTrader(ex.url);
    await deposit(ex.url, ex.adminToken, t.address, '10000');
    return t;
  };
  /** The algo order once its status is one of `statuses`. */
  const settled = (who: Trader, algoId: number, ...statuses: string[]) =>
    eventually(
      () => algoQuery(who, algoId),
      (a) => statuses.includes(a.algoStatus),
    );

  beforeAll(async () => {
    ex = await startInProcessExchange(
      { KEEPER_TICK_MS: '50', KEEPER_CLOCK_SKEW_MS: String(CLOCK_SKEW_MS) },
      { markets: noInterest },
    );
    maker = await funded();
    await mark('50000');
  });

  afterAll(async () => {
    await ex?.close();
  });

  it('places, lists and cancels a conditional order; cancelling again succeeds, a done one is -2011', async () => {
    const t = await funded();
    const placed = await algo(t, {
      side: 'BUY',
      type: 'STOP_MARKET',
      triggerPrice: '51000',
      quantity: '0.01',
      clientAlgoId: 'stop-a',
      workingType: 'MARK_PRICE',
    });
    expect(placed).toMatchObject({
      status: 200,
      body: {
        algoType: 'CONDITIONAL',
        orderType: 'STOP_MARKET',
        clientAlgoId: 'stop-a',
        algoStatus: 'NEW',
        triggerPrice: '51000.0',
        quantity: '0.010',
        timeInForce: 'GTC',
        workingType: 'MARK_PRICE',
        closePosition: false,
        activatePrice: null,
      },
    });
    const id = placed.body.algoId as number;
    const open = await signed(ex.url, '/fapi/v1/openAlgoOrders', t.key, { params: { symbol: BTC } });
    expect((open.body as AlgoView[]).map((a) => a.algoId)).toEqual([id]);
    // Algo orders are not listed with the orders.
    expect((await signed(ex.url, '/fapi/v1/openOrders', t.key, { params: { symbol: BTC } })).body).toEqual(
      [],
    );
    const cancel = () =>
      signed(ex.url, '/fapi/v1/algoOrder', t.key, { method: 'DELETE', params: { clientAlgoId: 'stop-a' } });
    expect(await cancel()).toMatchObject({
      status: 200,
      body: { algoId: id, clientAlgoId: 'stop-a', code: '200', msg: 'success' },
    });
    expect(await cancel()).toMatchObject({ status: 200, body: { algoId: id, code: '200' } });
    expect((await signed(ex.url, '/fapi/v1/openAlgoOrders', t.key)).body).toEqual([]);
    expect(await algoQuery(t, id)).toMatchObject({ algoStatus: 'CANCELED' });
    const all = await signed(ex.url, '/fapi/v1/allAlgoOrders', t.key, { params: { symbol: BTC } });
    expect((all.body as AlgoView[]).map((a) => [a.algoId, a.algoStatus])).toEqual([[id, 'CANCELED']]);
    // The history projection keeps it in Postgres, behind the log.
    const db = ex.app.get<DataSource>(PERSISTENCE_DATA_SOURCE);
    const row = () =>
      db.query('SELECT status FROM algo_orders WHERE algo_id = $1', [id]) as Promise<{ status: string }[]>;
    expect(await eventually(row, (r) => r[0]?.status === 'CANCELED')).toEqual([{ status: 'CANCELED' }]);

    // DELETE algoOpenOrders cancels every NEW one of the symbol.
    for (const p of ['52000', '53000'])
      expect(
        await algo(t, { side: 'BUY', type: 'STOP_MARKET', triggerPrice: p, quantity: '0.01' }),
      ).toMatchObject({ status: 200 });
    expect(
      await signed(ex.url, '/fapi/v1/algoOpenOrders', t.key, { method: 'DELETE', params: { symbol: BTC } }),
    ).toMatchObject({ status: 200, body: { code: 200 } });
    expect((await signed(ex.url, '/fapi/v1/openAlgoOrders', t.key)).body).toEqual([]);
  });

  it('a trailing stop activates, follows the low and fires at the callback, not a tick before', async () => {
    const t = await funded();
    expect(
      await order(maker, { side: 'SELL', type: 'LIMIT', price: '49600', quantity: '0.01' }),
    ).toMatchObject({
      status: 200,
    });
    const placed = await algo(t, {
      side: 'BUY',
      type: 'TRAILING_STOP_MARKET',
      activatePrice: '49500',
      callbackRate: '1',
      quantity: '0.01',
    });
    expect(placed).toMatchObject({
      status: 200,
      body: {
        orderType: 'TRAILING_STOP_MARKET',
        activatePrice: '49500.0',
        callbackRate: '1',
        algoStatus: 'NEW',
      },
    });
    const id = placed.body.algoId as number;
    await mark('49800'); // above the activation price: waits
    await mark('49000'); // activates; low 49000, fires at 49490
    await mark('49489.9');
    expect(await algoQuery(t, id)).toMatchObject({ algoStatus: 'NEW', triggerTime: 0 });
    await mark('49490');
    const fired = await settled(t, id, 'TRIGGERED', 'FINISHED');
    expect(fired.actualOrderId).not.toBe('');
    expect(
      await eventually(
        () => orderQuery(t, fired.actualOrderId),
        (o) => o.status === 'FILLED',
      ),
    ).toMatchObject({
      status: 'FILLED',
      type: 'MARKET',
      origType: 'TRAILING_STOP_MARKET',
      executedQty: '0.010',
    });
    expect(await settled(t, id, 'FINISHED')).toMatchObject({ algoStatus: 'FINISHED' });
  });

  it('a GTD order expires at goodTillDate on the keeper clock', async () => {
    const t = await funded();
    const placed = await algo(t, {
      side: 'BUY',
      type: 'STOP_MARKET',
      triggerPrice: '60000',
      quantity: '0.01',
      timeInForce: 'GTD',
      goodTillDate: String(Date.now() + 650_000),
    });
    expect(placed).toMatchObject({ status: 200, body: { timeInForce: 'GTD', algoStatus: 'NEW' } });
    expect(await settled(t, placed.body.algoId as number, 'EXPIRED')).toMatchObject({
      algoStatus: 'EXPIRED',
    });
    expect((await signed(ex.url, '/fapi/v1/openAlgoOrders', t.key)).body).toEqual([]);
  });

  it('a closePosition stop closes the whole position as it is at firing, though it grew after placement', async () => {
    const t = await funded();
    const buy = async () => {
      expect(
        await order(maker, { side: 'SELL', type: 'LIMIT', price: '49500', quantity: '0.01' }),
      ).toMatchObject({
        status: 200,
      });
      expect(
        await order(t, { side: 'BUY', type: 'LIMIT', price: '49500', quantity: '0.01', timeInForce: 'IOC' }),
      ).toMatchObject({ status: 200, body: { status: 'FILLED' } });
    };
    await buy();
    expect(
      await eventually(
        () => positionAmt(t),
        (v) => v === 0.01,
      ),
    ).toBe(0.01);
    const placed = await algo(t, {
      side: 'SELL',
      type: 'STOP_MARKET',
      triggerPrice: '48000',
      closePosition: 'true',
    });
    expect(placed).toMatchObject({ status: 200, body: { closePosition: true, quantity: '0' } });
    await buy();
    expect(
      await eventually(
        () => positionAmt(t),
        (v) => v === 0.02,
      ),
    ).toBe(0.02);
    expect(
      await order(maker, { side: 'BUY', type: 'LIMIT', price: '47900', quantity: '0.05' }),
    ).toMatchObject({
      status: 200,
    });
    await mark('47950');
    const fired = await settled(t, placed.body.algoId as number, 'FINISHED', 'FAILED');
    expect(fired.algoStatus).toBe('FINISHED');
    expect(await orderQuery(t, fired.actualOrderId)).toMatchObject({
      status: 'FILLED',
      executedQty: '0.020',
    });
    expect(
      await eventually(
        () => positionAmt(t),
        (v) => v === 0,
      ),
    ).toBe(0);
    expect(
      await signed(ex.url, '/fapi/v1/allOpenOrders', maker.key, {
        method: 'DELETE',
        params: { symbol: BTC },
      }),
    ).toMatchObject({ status: 200 });
  });

  it('an algo order refused by pre-trade when it fires ends FAILED', async () => {
    const t = await funded();
    const placed = await algo(t, { side: 'BUY', type: 'STOP_MARKET', triggerPrice: '55000', quantity: '5' });
    expect(placed).toMatchObject({ status: 200, body: { algoStatus: 'NEW' } });
    const id = placed.body.algoId as number;
    expect(
      await signed(ex.url, '/fapi/v1/algoOrder', t.key, {
        method: 'DELETE',
        params: { algoId: '999999999' },
      }),
    ).toMatchObject({ status: 404, body: { code: -2013 } });
    await mark('55000');
    expect(await settled(t, id, 'FAILED')).toMatchObject({ algoStatus: 'FAILED', actualOrderId: '' });
    expect(
      await signed(ex.url, '/fapi/v1/algoOrder', t.key, { method: 'DELETE', params: { algoId: String(id) } }),
    ).toMatchObject({ status: 400, body: { code: -2011 } });
    await mark('50000');
  });

  it('native: stop and take-profit orders through POST /api/v1/orders, listed, read and cancelled by id', async () => {
    const wallet = Wallet.createRandom();
    const token = await login(ex.url, wallet);
    await deposit(ex.url, ex.adminToken, wallet.address.toLowerCase(), '10000');
    const api = (method: string, path: string, body?: unknown) =>
      json(`${ex.url}/api/v1/orders${path}`, method, body, token);
    const placed = await api('POST', '', {
      symbol: 'BTC-USD',
      side: 'sell',
      type: 'stop_limit',
      quantity: '0.01',
      trigger_price: '45000',
      price: '44900',
      client_order_id: 'front-sl',
    });
    expect(placed).toMatchObject({
      status: 200,
      body: {
        id: expect.stringMatching(/^\d+$/),
        client_order_id: 'front-sl',
        symbol: 'BTCUSDT',
        type: 'stop_limit',
        status: 'new',
        trigger_price: '45000.0',
        price: '44900.0',
        quantity: '0.010',
        order_id: null,
      },
    });
    const id = placed.body.id as string;
    expect(((await api('GET', '')).body as { id: string }[]).map((o) => o.id)).toEqual([id]);
    expect(await api('GET', `/${id}`)).toMatchObject({ status: 200, body: { id, status: 'new' } });
    expect(
      await api('POST', '', {
        symbol: 'BTCUSDT',
        side: 'buy',
        type: 'take_profit_market',
        quantity: '0.01',
        trigger_price: '60000',
      }),
    ).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(await api('DELETE', `/${id}`)).toMatchObject({ status: 200, body: { id, status: 'canceled' } });
    expect((await api('GET', '')).body).toEqual([]);
    expect(await api('GET', '/4242')).toMatchObject({ status: 404, body: { code: 'ORDER_NOT_FOUND' } });
  });

  describe('ccxt binanceusdm', () => {
    let c: InstanceType<typeof ccxt.binanceusdm>;

    beforeAll(async () => {
      c = ccxtClient(ex.url, await funded());
      await c.loadMarkets();
    });

    it('createOrder with stopLossPrice, takeProfitPrice and trailingPercent; fetchOpenOrders and cancelOrder', async () => {
      const sl = await c.createOrder(CCXT_BTC, 'market', 'sell', 0.01, undefined, { stopLossPrice: 45000 });
      const tp = await c.createOrder(CCXT_BTC, 'market', 'sell', 0.01, undefined, { takeProfitPrice: 56000 });
      const ts = await c.createOrder(CCXT_BTC, 'market', 'sell', 0.01, undefined, { trailingPercent: 2 });
      for (const o of [sl, tp, ts]) expect(o).toMatchObject({ status: 'open', side: 'sell', amount: 0.01 });
      const open = await c.fetchOpenOrders(CCXT_BTC, undefined, undefined, { trigger: true });
      expect(open.map((o) => o.id).sort()).toEqual([sl.id, tp.id, ts.id].sort());
      expect(open.find((o) => o.id === sl.id)).toMatchObject({ triggerPrice: 45000 });
      expect(open.find((o) => o.id === tp.id)).toMatchObject({ triggerPrice: 56000 });
      for (const o of [sl, tp, ts]) await c.cancelOrder(o.id!, CCXT_BTC, { trigger: true });
      expect(await c.fetchOpenOrders(CCXT_BTC, undefined, undefined, { trigger: true })).toEqual([]);
    });
  });
});
