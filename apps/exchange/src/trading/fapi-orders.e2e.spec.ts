import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS } from '@perp/contracts';
import { signed } from '@perp/testing';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';

// Order entry besides New Order: test orders, leverage, modify, batches and cancel-all, with the
// spec's error rows each endpoint can produce (status, `{code, msg}` envelope, code).
describe('FAPI order entry: order/test, leverage, modify, batchOrders, allOpenOrders', () => {
  let ex: InProcessExchange;
  let t: Trader;

  const call = (path: string, method: 'POST' | 'PUT' | 'DELETE', params: Record<string, string>) =>
    signed(ex.url, `/fapi/v1/${path}`, t.key, { method, params });
  const refused = (code: number, status = 400) => ({ status, body: { code, msg: expect.any(String) } });
  const limit = (price: string, quantity = '0.01', extra: Record<string, string> = {}) => ({
    symbol: BTC,
    side: 'BUY',
    type: 'LIMIT',
    price,
    quantity,
    ...extra,
  });
  const openOrders = async () =>
    (await signed(ex.url, '/fapi/v1/openOrders', t.key, { params: { symbol: BTC } })).body as {
      orderId: string;
      price: string;
      origQty: string;
    }[];

  beforeAll(async () => {
    ex = await startInProcessExchange();
    t = await newTrader(ex.url);
    const dep = await adminRequest(ex.url, ex.adminToken, '/deposits', 'POST', {
      address: t.address,
      asset: 'USDT',
      amount: '10000',
    });
    expect(dep.status).toBe(200);
  });

  afterAll(async () => {
    await ex?.close();
  });

  it('order/test validates like New Order and places nothing', async () => {
    expect(await call('order/test', 'POST', limit('40000'))).toMatchObject({ status: 200, body: {} });
    expect(await openOrders()).toEqual([]);
    const rows: [Record<string, string>, number][] = [
      [{ ...limit('40000'), symbol: 'NOPEUSDT' }, -1121],
      [{ symbol: BTC, side: 'BUY', type: 'LIMIT', quantity: '0.01' }, -1102],
      [{ ...limit('40000'), quoteOrderQty: '100' }, -1106],
      [{ ...limit('40000'), side: 'UP' }, -1130],
      [{ ...limit('40000'), type: 'TRAILING_STOP_MARKET' }, -1130],
      [limit('40000', 'abc'), -1100],
      [limit('40000.05'), -1013],
      [limit('40000', '0.01', { newClientOrderId: 'bad id!' }), -1100],
      [limit('-40000'), -2010],
      [limit('40000', '0.0001'), -1013],
    ];
    for (const [params, code] of rows)
      expect(await call('order/test', 'POST', params)).toMatchObject(refused(code));
  });

  it('leverage: 1..max answers leverage, maxNotionalValue and symbol; otherwise -4028, -1121, -1102', async () => {
    const ok = await call('leverage', 'POST', { symbol: 'btc-usdt', leverage: '10' });
    expect(ok).toMatchObject({
      status: 200,
      body: { leverage: 10, symbol: BTC, maxNotionalValue: expect.any(String) },
    });
    for (const leverage of ['0', '126', 'abc', '2.5'])
      expect(await call('leverage', 'POST', { symbol: BTC, leverage })).toMatchObject(refused(-4028));
    expect(await call('leverage', 'POST', { symbol: 'NOPEUSDT', leverage: '5' })).toMatchObject(
      refused(-1121),
    );
    expect(await call('leverage', 'POST', { symbol: BTC })).toMatchObject(refused(-1102));
  });

  it('PUT order modifies price and total quantity of a resting LIMIT order; its errors', async () => {
    const placed = await call('order', 'POST', limit('40000', '0.01', { newClientOrderId: 'mod-1' }));
    expect(placed.status).toBe(200);
    const id = placed.body.orderId as string;
    const moved = await call('order', 'PUT', {
      symbol: BTC,
      orderId: id,
      side: 'BUY',
      price: '41000',
      quantity: '0.02',
    });
    expect(moved).toMatchObject({
      status: 200,
      body: { orderId: id, price: '41000.0', origQty: '0.020', status: 'NEW' },
    });
    expect((await openOrders()).map((o) => [o.orderId, o.price, o.origQty])).toEqual([
      [id, '41000.0', '0.020'],
    ]);
    const byClientId = await call('order', 'PUT', {
      symbol: BTC,
      origClientOrderId: 'mod-1',
      side: 'BUY',
      price: '41000',
      quantity: '0.01',
    });
    expect(byClientId).toMatchObject({ status: 200, body: { origQty: '0.010' } });
    const base = { symbol: BTC, orderId: id, side: 'BUY', price: '41000', quantity: '0.01' };
    expect(await call('order', 'PUT', { ...base, side: 'SELL' })).toMatchObject(refused(-1102));
    expect(await call('order', 'PUT', { ...base, side: 'UP' })).toMatchObject(refused(-1130));
    expect(
      await call('order', 'PUT', { ...base, orderId: '7c1e4a0e-2f7b-4f7e-9a43-0d6f9b1c2d3e' }),
    ).toMatchObject(refused(-2013, 404));
    expect(await call('order', 'PUT', { ...base, orderId: 'not-a-uuid' })).toMatchObject(refused(-1100));
    const { orderId: _id, ...noId } = base;
    void _id;
    expect(await call('order', 'PUT', noId)).toMatchObject(refused(-1102));
    expect(await call('order', 'PUT', { ...base, price: '0' })).toMatchObject(refused(-1013));
    expect(await call('order', 'PUT', { ...base, quantity: 'x' })).toMatchObject(refused(-1100));
    expect(await call('order', 'PUT', { ...base, price: '41000.05' })).toMatchObject(refused(-1013));
    expect(await call('order', 'PUT', { ...base, quantity: '10' })).toMatchObject(refused(-2019));
    expect(await call('order', 'PUT', { ...base, quantity: '1000' })).toMatchObject(refused(-1013));
    // Refusals changed nothing.
    expect((await openOrders()).map((o) => [o.orderId, o.price, o.origQty])).toEqual([
      [id, '41000.0', '0.010'],
    ]);
  });

  it('a closed order reads the same from history once its hot record has expired', async () => {
    // One canceled, one filled (half by a resting sell of another trader, then the rest).
    const maker = await newTrader(ex.url);
    await adminRequest(ex.url, ex.adminToken, '/deposits', 'POST', {
      address: maker.address,
      asset: 'USDT',
      amount: '10000',
    });
    const sell = (price: string) =>
      signed(ex.url, '/fapi/v1/order', maker.key, {
        method: 'POST',
        params: { ...limit(price, '0.01'), side: 'SELL' },
      });
    const place = async (price: string, clientId: string) => {
      const placed = await call(
        'order',
        'POST',
        limit(price, '0.02', { newClientOrderId: clientId, selfTradePreventionMode: 'EXPIRE_BOTH' }),
      );
      expect(placed.status).toBe(200);
      return (placed.body as { orderId: string }).orderId;
    };
    const canceled = await place('38000', 'kept-1');
    expect((await call('order', 'DELETE', { symbol: BTC, orderId: canceled })).status).toBe(200);
    // Above the bid that an earlier test left resting, so each sell meets this order first.
    expect((await sell('42000')).status).toBe(200);
    const filled = await place('42000', 'kept-2');
    expect((await sell('41500')).status).toBe(200);

    const read = async (ref: Record<string, string>) =>
      (await signed(ex.url, '/fapi/v1/order', t.key, { params: { symbol: BTC, ...ref } })).body;
    for (const [orderId, clientId, status] of [
      [canceled, 'kept-1', 'CANCELED'],
      [filled, 'kept-2', 'FILLED'],
    ] as const) {
      // The maker's answer does not wait for the taker's account to take the fill.
      const fromHot = await eventually(
        () => read({ orderId }),
        (o) => (o as { status: string }).status === status,
      );
      expect(fromHot).toMatchObject({ orderId, status, selfTradePreventionMode: 'EXPIRE_BOTH' });
      await ex.app.get<HotStore>(HOT_STORE).del(HOT_KEYS.closedOrder(orderId));
      expect(await read({ orderId })).toEqual(fromHot);
      expect(await read({ origClientOrderId: clientId })).toEqual(fromHot);
    }
  });

  it('DELETE allOpenOrders cancels the symbol; DELETE order with neither id is -1102', async () => {
    expect(await call('order', 'DELETE', { symbol: BTC })).toMatchObject(refused(-1102));
    expect(await call('allOpenOrders', 'DELETE', { symbol: 'NOPEUSDT' })).toMatchObject(refused(-1121));
    expect(await call('allOpenOrders', 'DELETE', {})).toMatchObject(refused(-1102));
    const done = await call('allOpenOrders', 'DELETE', { symbol: BTC });
    expect(done).toMatchObject({ status: 200, body: { code: 200, msg: expect.any(String) } });
    expect(await openOrders()).toEqual([]);
  });

  it('batchOrders: entries run in order, one failure does not abort the rest; a bad batch is -1102', async () => {
    const batch = [limit('39000'), { ...limit('39000'), side: 'UP' }, limit('39100', '0.02')];
    const r = await call('batchOrders', 'POST', { batchOrders: JSON.stringify(batch) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      expect.objectContaining({ status: 'NEW', price: '39000.0', origQty: '0.010' }),
      { code: -1130, msg: expect.any(String) },
      expect.objectContaining({ status: 'NEW', price: '39100.0', origQty: '0.020' }),
    ]);
    for (const bad of ['', 'not json', '[]', '{}', JSON.stringify(Array(6).fill(limit('39000')))])
      expect(await call('batchOrders', 'POST', { batchOrders: bad })).toMatchObject(refused(-1102));
    expect(await call('batchOrders', 'POST', {})).toMatchObject(refused(-1102));
    expect(await openOrders()).toHaveLength(2);

    const ids = (r.body as { orderId?: string }[]).flatMap((o) => (o.orderId ? [o.orderId] : []));
    const unknown = '7c1e4a0e-2f7b-4f7e-9a43-0d6f9b1c2d3e';
    const canceled = await call('batchOrders', 'DELETE', {
      symbol: BTC,
      orderIdList: JSON.stringify([ids[0], unknown, 'not-a-uuid']),
    });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toEqual([
      expect.objectContaining({ orderId: ids[0], status: 'CANCELED' }),
      { code: -2011, msg: expect.any(String) },
      { code: -1100, msg: expect.any(String) },
    ]);
    expect(await call('batchOrders', 'DELETE', { symbol: BTC })).toMatchObject(refused(-1102));
    for (const bad of ['[a b]', '["x",]', '[,]', '[]', `[${Array(11).fill('x').join(',')}]`, '[[x]]'])
      expect(await call('batchOrders', 'DELETE', { symbol: BTC, orderidlist: bad })).toMatchObject(
        refused(-1102),
      );
    expect((await openOrders()).map((o) => o.orderId)).toEqual([ids[1]]);

    // The spellings ccxt sends: lower-case names, order ids unquoted in brackets.
    const more = await call('batchOrders', 'POST', {
      batchOrders: JSON.stringify([limit('38000'), { ...limit('38100'), newClientOrderId: 'batch-c-1' }]),
    });
    const [first] = (more.body as { orderId: string }[]).map((o) => o.orderId);
    const bare = await call('batchOrders', 'DELETE', { symbol: BTC, orderidlist: `[${first},${unknown}]` });
    expect(bare.body).toEqual([
      expect.objectContaining({ orderId: first, status: 'CANCELED' }),
      { code: -2011, msg: expect.any(String) },
    ]);
    const byClient = await call('batchOrders', 'DELETE', {
      symbol: BTC,
      origclientorderidlist: '["batch-c-1"]',
    });
    expect(byClient.body).toEqual([
      expect.objectContaining({ clientOrderId: 'batch-c-1', status: 'CANCELED' }),
    ]);
    expect((await openOrders()).map((o) => o.orderId)).toEqual([ids[1]]);
  });
});
