import { HOT_STORE, type HotStore } from '@perp/cache';
import { readAccountProjection, userIdForAddress } from '@perp/contracts';
import { Account, Money } from '@perp/domain';
import { AdminAuditRepository, IncomeRepository } from '@perp/persistence';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { json, signed } from '@perp/testing';
import { adminRequest, eventually, newTrader, type Trader } from './trading.harness';

// Two funded users cross at a price through FAPI; everything checked against hand-computed figures.
describe('trading through the embedded exchange (gateway -> risk -> engine -> risk)', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;

  const admin = (path: string, method: string, body: unknown) =>
    adminRequest(ex.url, ex.adminToken, path, method, body);
  const order = (t: Trader, params: Record<string, string>, method: 'POST' | 'DELETE' = 'POST') =>
    signed(ex.url, '/fapi/v1/order', t.key, { method, params });
  const account = async (t: Trader) => {
    return readAccountProjection(ex.app.get<HotStore>(HOT_STORE), t.address);
  };
  const wallet = async (t: Trader) => {
    const p = await account(t);
    return p ? Account.fromState(p.state).walletBalance.toFixed() : '0';
  };
  const position = async (t: Trader, symbol = 'BTCUSDT') => {
    const p = await account(t);
    return p && Account.fromState(p.state).position(symbol);
  };

  beforeAll(async () => {
    ex = await startInProcessExchange();
    a = await newTrader(ex.url);
    b = await newTrader(ex.url);
  });

  afterAll(async () => {
    await ex?.close();
  });

  it('admin deposits credit wallets and answer the new balance; a wrong token changes nothing', async () => {
    const denied = await json(
      `${ex.url}/admin/v1/deposits`,
      'POST',
      { address: a.address, asset: 'USDT', amount: '1' },
      'wrong',
    );
    expect(denied.status).toBe(401);
    const r = await admin('/deposits', 'POST', { address: a.address, asset: 'USDT', amount: '10000' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ address: a.address, asset: 'USDT', balance: '10000' });
    expect(
      (await admin('/deposits', 'POST', { address: b.address, asset: 'USDT', amount: '10000' })).status,
    ).toBe(200);
    expect(await wallet(a)).toBe('10000');
    for (const bad of [
      { address: 'nope', asset: 'USDT', amount: '1' },
      { address: a.address, asset: 'BTC', amount: '1' },
      { address: a.address, asset: 'USDT', amount: '-1' },
      { address: a.address, asset: 'USDT', amount: 5 },
    ]) {
      const res = await admin('/deposits', 'POST', bad);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), code: expect.any(String) });
    }
    expect(await wallet(a)).toBe('10000');
  });

  it('a maker and a taker cross; fees at VIP 0 rates, positions opposite', async () => {
    expect((await admin('/prices/BTCUSDT', 'POST', { indexPrice: '50000' })).status).toBe(200);
    const sell = await order(a, {
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'LIMIT',
      price: '50000',
      quantity: '0.1',
      timeInForce: 'GTC',
    });
    expect(sell.status).toBe(200);
    expect(sell.body).toMatchObject({
      symbol: 'BTCUSDT',
      status: 'NEW',
      side: 'SELL',
      origQty: '0.100',
      executedQty: '0.000',
      price: '50000.0',
    });
    const buy = await order(b, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' });
    expect(buy.status).toBe(200);
    expect(buy.body).toMatchObject({
      status: 'FILLED',
      executedQty: '0.100',
      cumQuote: '5000',
      avgPrice: '50000',
    });
    // Taker's own fills are settled before its answer (read-your-writes).
    expect(await wallet(b)).toBe('9997.5');
    expect((await position(b))?.size.toFixed()).toBe('0.1');
    // The maker's settlement arrives through its own partition.
    expect(
      await eventually(
        () => wallet(a),
        (v) => v === '9999',
      ),
    ).toBe('9999');
    expect((await position(a))?.size.toFixed()).toBe('-0.1');
  });

  it('closing at a new price realizes PnL; wallets + fees = deposits exactly; income history in Postgres', async () => {
    expect((await admin('/prices/BTCUSDT', 'POST', { indexPrice: '51000' })).status).toBe(200);
    expect(
      (await order(b, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '51000', quantity: '0.1' }))
        .status,
    ).toBe(200);
    const close = await order(a, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' });
    expect(close.body).toMatchObject({ status: 'FILLED', executedQty: '0.100' });
    expect(await wallet(a)).toBe('9896.45');
    expect(
      await eventually(
        () => wallet(b),
        (v) => v === '10096.48',
      ),
    ).toBe('10096.48');
    expect(await position(a)).toBeUndefined();
    const incomes = ex.app.get(IncomeRepository);
    const rows = await eventually(
      () => incomes.listByUser(userIdForAddress(a.address)),
      (r) => r.length === 3,
    );
    expect(rows.map((r) => [r.incomeType, r.income]).sort()).toEqual(
      [
        ['COMMISSION', '-1'],
        ['COMMISSION', '-2.55'],
        ['REALIZED_PNL', '-100'],
      ].sort(),
    );
  });

  it('cancel answers the CANCELED record and releases the frozen margin; unknown order is -2011', async () => {
    const placed = await order(a, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      price: '40000',
      quantity: '0.01',
      newClientOrderId: 'mine-1',
    });
    expect(placed.body).toMatchObject({ status: 'NEW', clientOrderId: 'mine-1' });
    expect((await account(a))?.orders).toHaveLength(1);
    const dup = await order(a, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      price: '40000',
      quantity: '0.01',
      newClientOrderId: 'mine-1',
    });
    expect(dup).toMatchObject({ status: 400, body: { code: -2014 } });
    const canceled = await order(a, { symbol: 'BTCUSDT', origClientOrderId: 'mine-1' }, 'DELETE');
    expect(canceled).toMatchObject({
      status: 200,
      body: { status: 'CANCELED', orderId: placed.body.orderId },
    });
    const p = await account(a);
    expect(p?.orders).toHaveLength(0);
    expect(Account.fromState(p!.state).frozenMargin().toFixed()).toBe('0');
    const again = await order(a, { symbol: 'BTCUSDT', orderId: placed.body.orderId }, 'DELETE');
    expect(again).toMatchObject({ status: 400, body: { code: -2011 } });
  });

  it('refusals carry the spec codes: -2019 margin, -1013 size, -1121 symbol, -2022 reduceOnly', async () => {
    const big = await order(a, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      price: '50000',
      quantity: '100',
    });
    expect(big).toMatchObject({ status: 400, body: { code: -2019 } });
    const tiny = await order(a, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      price: '50000',
      quantity: '0.00001',
    });
    expect(tiny).toMatchObject({ status: 400, body: { code: -1013 } });
    const sym = await order(a, { symbol: 'NOPEUSDT', side: 'BUY', type: 'LIMIT', price: '1', quantity: '1' });
    expect(sym).toMatchObject({ status: 400, body: { code: -1121 } });
    const ro = await order(a, {
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.01',
      reduceOnly: 'true',
    });
    expect(ro).toMatchObject({ status: 400, body: { code: -2022 } });
    expect(await wallet(a)).toBe('9896.45');
    expect(
      Account.fromState((await account(a))!.state)
        .frozenMargin()
        .toFixed(),
    ).toBe('0');
  });

  it('a VIP tier set by the operator prices the next fills; unknown tiers are refused; each admin action is audited', async () => {
    expect((await admin(`/users/${a.address}/vip`, 'PUT', { tier: 99 })).status).toBe(400);
    expect((await admin(`/users/${a.address}/vip`, 'PUT', { tier: 'x' })).status).toBe(400);
    expect((await admin(`/users/${a.address}/vip`, 'PUT', { tier: 1 })).body).toEqual({
      address: a.address,
      tier: 1,
    });
    const walletA = new Money(await wallet(a));
    const walletB = new Money(
      await eventually(
        () => wallet(b),
        (v) => v === '10096.48',
      ),
    );
    // a (tier 1) takes b's resting 0.1 @ 51000: taker 0.0004 x 5100 = 2.04; b (tier 0) maker 1.02.
    expect(
      (await order(b, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '51000', quantity: '0.1' }))
        .status,
    ).toBe(200);
    expect(
      (await order(a, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' })).body,
    ).toMatchObject({ status: 'FILLED' });
    expect(await wallet(a)).toBe(walletA.minus('2.04').toFixed());
    expect(
      await eventually(
        () => wallet(b),
        (v) => v === walletB.minus('1.02').toFixed(),
      ),
    ).toBe(walletB.minus('1.02').toFixed());
    const actions = (await ex.app.get(AdminAuditRepository).list({ limit: 100 })).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['deposit', 'vip.set', 'price.index']));
    expect(actions.filter((x) => x === 'vip.set')).toHaveLength(1);
  });
});
