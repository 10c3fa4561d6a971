import { randomUUID } from 'node:crypto';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, readAccountProjection, readDepth, userIdForAddress } from '@perp/contracts';
import { Account, MarketRegistry } from '@perp/domain';
import { OrderRepository } from '@perp/persistence';
import { type InProcessExchange, noInterest, startInProcessExchange } from '@perp/exchange';
import { Wallet } from 'ethers';
import { type HttpResponse, json, login, nativeError } from '../../access/access.harness';
import { RiskClient } from '../../risk/risk-client';

interface User {
  address: string;
  token: string;
}

async function eventually<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Native trading against the embedded exchange: gateway -> risk -> engine -> risk, with the
// market-data projections (open interest, book top) running beside them.
describe('native trading and account (/api/v1)', () => {
  let ex: InProcessExchange;
  let a: User; // maker: funded, cross margin
  let b: User; // taker: funded, cross margin
  let c: User; // never funded
  let d: User; // funded, isolated margin

  const api = (method: string, path: string, user?: User, body?: unknown): Promise<HttpResponse> =>
    json(`${ex.url}/api/v1${path}`, method, body, user?.token);
  const admin = (path: string, body: unknown) =>
    json(`${ex.url}/admin/v1${path}`, 'POST', body, ex.adminToken);
  const hot = () => ex.app.get<HotStore>(HOT_STORE);
  const accountOf = async (u: User) => {
    const p = await readAccountProjection(hot(), u.address);
    return p ? Account.fromState(p.state) : undefined;
  };
  /** Waits until the book-top projection shows `qty` on the side a market order of `side` takes from. */
  /** Waits until the projected L2 book (what max_slippage reads) holds a level of `qty` on `side`. */
  const depthShows = (symbol: string, side: 'asks' | 'bids', qty: string) =>
    eventually(
      () => readDepth(hot(), symbol),
      (d) => d[side].some(([, q]) => q === qty),
    );
  const expectError = (r: HttpResponse, status: number, code: string) => {
    expect({ status: r.status, body: r.body }).toEqual({ status, body: nativeError(code) });
  };

  async function user(deposit?: string): Promise<User> {
    const w = Wallet.createRandom();
    const u = { address: w.address.toLowerCase(), token: await login(ex.url, w) };
    if (deposit)
      expect((await admin('/deposits', { address: u.address, asset: 'USDT', amount: deposit })).status).toBe(
        200,
      );
    return u;
  }

  beforeAll(async () => {
    // Figures at mark = index: a market without premium and interest has its index as mark.
    ex = await startInProcessExchange({}, { markets: noInterest });
    [a, b, c, d] = [await user('100000'), await user('100000'), await user(), await user('100000')];
    expect((await admin('/prices/BTCUSDT', { indexPrice: '50000' })).status).toBe(200);
    expect((await admin('/prices/ETHUSDT', { indexPrice: '3000' })).status).toBe(200);
  });

  afterAll(async () => {
    await ex?.close();
  });

  afterEach(() => jest.restoreAllMocks());

  describe('POST /api/v1/orders', () => {
    let resting: string;

    it('needs a JWT: 401 INVALID_TOKEN', async () => {
      expectError(await api('POST', '/orders', undefined, { symbol: 'BTCUSDT' }), 401, 'INVALID_TOKEN');
    });

    it('places a limit order by a hyphenated symbol, leverage set first; answers the snake_case order', async () => {
      const r = await api('POST', '/orders', a, {
        symbol: 'btc-usd',
        side: 'SELL',
        type: 'Limit',
        quantity: '0.1',
        price: '50000',
        leverage: 10,
        client_order_id: 'native-1',
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        client_order_id: 'native-1',
        symbol: 'BTCUSDT',
        side: 'sell',
        type: 'limit',
        status: 'new',
        time_in_force: 'gtc',
        reduce_only: false,
        price: '50000.0',
        quantity: '0.100',
        filled_quantity: '0.000',
        remaining_quantity: '0.100',
        average_price: null,
        filled_notional: '0',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(new Date(r.body.created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
      resting = r.body.id;
      const market = ex.app.get(MarketRegistry).find('BTCUSDT')!;
      expect((await accountOf(a))?.leverage(market)).toBe(10);
    });

    it('accepts market_symbol (BTC/USDT) and lists open orders, oldest first, filtered by any alias', async () => {
      const r = await api('POST', '/orders', a, {
        market_symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        quantity: '0.01',
        price: '40000',
        time_in_force: 'post_only',
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ symbol: 'BTCUSDT', side: 'buy', status: 'new', time_in_force: 'gtc' });
      const list = await api('GET', '/orders', a);
      expect(list.status).toBe(200);
      expect(list.body.map((o: { id: string }) => o.id)).toEqual([resting, r.body.id]);
      expect((await api('GET', '/orders?symbol=btc-usd', a)).body).toHaveLength(2);
      expect((await api('GET', '/orders?symbol=ETH-USD', a)).body).toEqual([]);
      expectError(await api('GET', '/orders?symbol=DOGE-USD', a), 404, 'INVALID_MARKET');
      const one = await api('GET', `/orders/${r.body.id}`, a);
      expect(one).toMatchObject({ status: 200, body: { id: r.body.id, status: 'new' } });
      expect((await api('DELETE', `/orders/${r.body.id}`, a)).status).toBe(200);
    });

    it('fills a market order within max_slippage against the projected book', async () => {
      await depthShows('BTCUSDT', 'asks', '0.100');
      const r = await api('POST', '/orders', b, {
        symbol: 'BTCUSDT',
        side: 'buy',
        type: 'market',
        quantity: '0.05',
        max_slippage: '0.01',
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        type: 'market',
        status: 'filled',
        price: null,
        quantity: '0.050',
        filled_quantity: '0.050',
        remaining_quantity: '0.000',
        average_price: '50000',
        filled_notional: '2500',
      });
      const partly = await api('GET', `/orders/${resting}`, a);
      expect(partly.body).toMatchObject({
        status: 'partially_filled',
        filled_quantity: '0.050',
        remaining_quantity: '0.050',
      });
    });

    it.each([
      [
        'an unknown symbol',
        'INVALID_SYMBOL',
        { symbol: 'DOGE-USD', side: 'buy', type: 'limit', quantity: '1', price: '1' },
      ],
      ['no symbol', 'INVALID_SYMBOL', { side: 'buy', type: 'limit', quantity: '1', price: '1' }],
      [
        'a negative quantity',
        'INVALID_AMOUNT',
        { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '-1', price: '1' },
      ],
      [
        'a quantity that is no number',
        'INVALID_AMOUNT',
        { symbol: 'BTCUSDT', side: 'buy', type: 'market', quantity: 'lots' },
      ],
      [
        'a quantity below one lot (risk: -1013)',
        'INVALID_AMOUNT',
        { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '0.0001', price: '40000' },
      ],
      [
        'a limit without price',
        'PRICE_REQUIRED',
        { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '0.01' },
      ],
      [
        'leverage 0',
        'INVALID_LEVERAGE',
        { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '0.01', price: '40000', leverage: 0 },
      ],
      [
        'leverage above the market max',
        'INVALID_LEVERAGE',
        { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '0.01', price: '40000', leverage: 126 },
      ],
      [
        'a fractional leverage',
        'INVALID_LEVERAGE',
        { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '0.01', price: '40000', leverage: 2.5 },
      ],
      [
        'an unknown side',
        'INVALID_REQUEST',
        { symbol: 'BTCUSDT', side: 'long', type: 'limit', quantity: '0.01', price: '40000' },
      ],
      [
        'an unknown type',
        'INVALID_REQUEST',
        { symbol: 'BTCUSDT', side: 'buy', type: 'stop', quantity: '0.01', price: '40000' },
      ],
      [
        'a price off the tick',
        'INVALID_REQUEST',
        { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '0.01', price: '40000.05' },
      ],
      [
        'a bad max_slippage',
        'INVALID_REQUEST',
        { symbol: 'BTCUSDT', side: 'buy', type: 'market', quantity: '0.01', max_slippage: '2' },
      ],
    ])('refuses %s: 400 %s', async (_name, code, body) => {
      expectError(await api('POST', '/orders', a, body), 400, code);
    });

    it('refuses a reduce-only order with nothing to reduce (engine -2022) as INVALID_REQUEST', async () => {
      const r = await api('POST', '/orders', c, {
        symbol: 'ETHUSDT',
        side: 'sell',
        type: 'market',
        quantity: '0.1',
        reduce_only: true,
      });
      expectError(r, 400, 'INVALID_REQUEST');
    });

    it('refuses an order the available balance cannot margin: 400 INSUFFICIENT_BALANCE', async () => {
      const r = await api('POST', '/orders', c, {
        symbol: 'BTCUSDT',
        side: 'buy',
        type: 'limit',
        quantity: '0.01',
        price: '40000',
      });
      expectError(r, 400, 'INSUFFICIENT_BALANCE');
    });

    it('refuses SLIPPAGE_EXCEEDED when the worst expected price in the book is beyond max_slippage', async () => {
      const ask = await api('POST', '/orders', a, {
        symbol: 'ETHUSDT',
        side: 'sell',
        type: 'limit',
        quantity: '1',
        price: '3100',
      });
      expect(ask.status).toBe(200);
      await depthShows('ETHUSDT', 'asks', '1.000');
      const tooFar = await api('POST', '/orders', b, {
        symbol: 'eth-usd',
        side: 'buy',
        type: 'market',
        quantity: '0.5',
        max_slippage: '0.01',
      });
      expectError(tooFar, 400, 'SLIPPAGE_EXCEEDED');
      expect(tooFar.body.error).toContain('3100');
      // The whole book counts: 1.5 would take the second ask too, 6.7 % beyond the mark.
      const deeper = await api('POST', '/orders', a, {
        symbol: 'ETHUSDT',
        side: 'sell',
        type: 'limit',
        quantity: '2',
        price: '3200',
      });
      expect(deeper.status).toBe(200);
      await depthShows('ETHUSDT', 'asks', '2.000');
      const tooDeep = await api('POST', '/orders', b, {
        symbol: 'ETHUSDT',
        side: 'buy',
        type: 'market',
        quantity: '1.5',
        max_slippage: '0.05',
      });
      expectError(tooDeep, 400, 'SLIPPAGE_EXCEEDED');
      expect(tooDeep.body.error).toContain('3200');
      expect((await api('DELETE', `/orders/${deeper.body.id}`, a)).status).toBe(200);
      // Nothing was sent: the ask is untouched; within 5 % the same order fills.
      const fits = await api('POST', '/orders', b, {
        symbol: 'ETHUSDT',
        side: 'buy',
        type: 'market',
        quantity: '0.5',
        max_slippage: '0.05',
      });
      expect(fits.body).toMatchObject({ status: 'filled', average_price: '3100', filled_quantity: '0.500' });
    });

    it('answers 503 PRICE_DATA_UNAVAILABLE when max_slippage has no mark price to measure against', async () => {
      const r = await api('POST', '/orders', b, {
        symbol: 'SOLUSDT',
        side: 'buy',
        type: 'market',
        quantity: '1',
        max_slippage: '0.01',
      });
      expectError(r, 503, 'PRICE_DATA_UNAVAILABLE');
    });

    it('answers 503 EXECUTION_STATUS_UNKNOWN when risk does not answer a sent order', async () => {
      jest
        .spyOn(RiskClient.prototype, 'send')
        .mockResolvedValue({ ok: false, unavailable: true, published: true });
      const r = await api('POST', '/orders', a, {
        symbol: 'BTCUSDT',
        side: 'buy',
        type: 'limit',
        quantity: '0.01',
        price: '40000',
      });
      expectError(r, 503, 'EXECUTION_STATUS_UNKNOWN');
    });
  });

  describe('open interest', () => {
    const tiny = {
      symbol: 'TINY-USD',
      baseAsset: 'TINY',
      quoteAsset: 'USDT',
      tickSize: '0.01',
      lotSize: '0.1',
      minOrderSizeUsd: '5',
      maxOrderSizeUsd: '100000',
      maxLeverage: 20,
      defaultLeverage: 10,
      maxLongOi: '1',
      maxShortOi: '1',
      rank: 9,
      sortOrder: 9,
      maintenanceBrackets: [{ notionalCap: '1000000', maintMarginRatio: '0.025', maxLeverage: 20 }],
      interestRate: '0',
    };

    beforeAll(async () => {
      expect((await admin('/markets', tiny)).status).toBe(200);
      expect((await admin('/prices/TINYUSDT', { indexPrice: '100' })).status).toBe(200);
    });

    it('starts at zero with the caps; USD at the mark price', async () => {
      const r = await api('GET', '/open-interest/tiny-usd');
      expect(r).toMatchObject({
        status: 200,
        body: {
          symbol: 'TINYUSDT',
          long_oi: '0.0',
          short_oi: '0.0',
          long_oi_usd: '0.00000000',
          short_oi_usd: '0.00000000',
          max_long_oi: '1',
          max_short_oi: '1',
          max_long_oi_usd: '100.00000000',
          max_short_oi_usd: '100.00000000',
          mark_price: '100',
          updated_at: null,
        },
      });
    });

    it('follows trades: opening raises both sides', async () => {
      const ask = { symbol: 'TINYUSDT', side: 'sell', type: 'limit', quantity: '1', price: '100' };
      expect((await api('POST', '/orders', a, ask)).status).toBe(200);
      const taken = await api('POST', '/orders', b, {
        symbol: 'TINYUSDT',
        side: 'buy',
        type: 'market',
        quantity: '1',
      });
      expect(taken.body).toMatchObject({ status: 'filled' });
      const r = await eventually(
        () => api('GET', '/open-interest/TINYUSDT'),
        (x) => x.body.long_oi === '1.0',
      );
      expect(r.body).toMatchObject({
        long_oi: '1.0',
        short_oi: '1.0',
        long_oi_usd: '100.00000000',
        short_oi_usd: '100.00000000',
        updated_at: expect.any(String),
      });
    });

    it('refuses an order over the cap: 400 OI_CAP_EXCEEDED with current, cap and requested_delta', async () => {
      const r = await api('POST', '/orders', a, {
        symbol: 'TINYUSDT',
        side: 'sell',
        type: 'limit',
        quantity: '0.5',
        price: '101',
      });
      expectError(r, 400, 'OI_CAP_EXCEEDED');
      expect(r.body.error).toContain('short');
      expect(r.body.error).toContain('current=1 cap=1 requested_delta=0.5');
      // Closing needs no room: the buyer may sell back what it holds.
      const close = await api('POST', '/orders', b, {
        symbol: 'TINYUSDT',
        side: 'sell',
        type: 'limit',
        quantity: '0.5',
        price: '101',
      });
      expect(close.body).toMatchObject({ status: 'new' });
    });

    it('answers 404 INVALID_MARKET for an unknown symbol', async () => {
      expectError(await api('GET', '/open-interest/DOGE-USD'), 404, 'INVALID_MARKET');
    });
  });

  describe('GET and DELETE /api/v1/orders/{id}', () => {
    let open: string;

    beforeAll(async () => {
      const r = await api('POST', '/orders', a, {
        symbol: 'BTCUSDT',
        side: 'buy',
        type: 'limit',
        quantity: '0.01',
        price: '30000',
      });
      expect(r.status).toBe(200);
      open = r.body.id;
    });

    it('another user cannot see or cancel an open order: 403 ORDER_NOT_OWNED', async () => {
      // Another user's open order is known through the order history (written asynchronously).
      await eventually(
        () => ex.app.get(OrderRepository).findById(open),
        (row) => row !== undefined,
      );
      expectError(await api('GET', `/orders/${open}`, b), 403, 'ORDER_NOT_OWNED');
      expectError(await api('DELETE', `/orders/${open}`, b), 403, 'ORDER_NOT_OWNED');
      expect((await api('GET', `/orders/${open}`, a)).body).toMatchObject({ status: 'new' });
    });

    it('cancels: 200 with the canceled order; then it is no longer open', async () => {
      const r = await api('DELETE', `/orders/${open}`, a);
      expect(r).toMatchObject({
        status: 200,
        body: { id: open, status: 'canceled', filled_quantity: '0.000', remaining_quantity: '0.000' },
      });
      expect((await api('GET', '/orders', a)).body.map((o: { id: string }) => o.id)).not.toContain(open);
      expect((await api('GET', `/orders/${open}`, a)).body).toMatchObject({ id: open, status: 'canceled' });
      expect((await accountOf(a))!.order(open)).toBeUndefined();
    });

    it('a done order is 400 ORDER_NOT_CANCELLABLE for its owner and 403 ORDER_NOT_OWNED for others', async () => {
      expectError(await api('DELETE', `/orders/${open}`, a), 400, 'ORDER_NOT_CANCELLABLE');
      expectError(await api('DELETE', `/orders/${open}`, b), 403, 'ORDER_NOT_OWNED');
    });

    it('a filled order found only in Postgres is still not cancellable', async () => {
      // The first market buy of b filled; drop its hot record so only the history row remains.
      const filled = (await ex.app.get(OrderRepository).listByUser(userIdForAddress(b.address))).find(
        (o) => o.status === 'FILLED',
      );
      expect(filled).toBeDefined();
      await hot().del(HOT_KEYS.closedOrder(filled!.id));
      expectError(await api('DELETE', `/orders/${filled!.id}`, b), 400, 'ORDER_NOT_CANCELLABLE');
      expectError(await api('DELETE', `/orders/${filled!.id}`, a), 403, 'ORDER_NOT_OWNED');
      expect((await api('GET', `/orders/${filled!.id}`, b)).body).toMatchObject({ status: 'filled' });
    });

    it.each([
      ['an unknown id', () => randomUUID()],
      ['an id that is no UUID', () => 'not-an-order'],
    ])('%s is 404 ORDER_NOT_FOUND', async (_name, id) => {
      const orderId = id();
      expectError(await api('DELETE', `/orders/${orderId}`, a), 404, 'ORDER_NOT_FOUND');
      expectError(await api('GET', `/orders/${orderId}`, a), 404, 'ORDER_NOT_FOUND');
    });

    it('needs a JWT', async () => {
      expectError(await api('DELETE', `/orders/${open}`), 401, 'INVALID_TOKEN');
      expectError(await api('GET', '/orders'), 401, 'INVALID_TOKEN');
    });

    it('answers 503 SERVICE_UNAVAILABLE when risk does not answer the cancel', async () => {
      const r = await api('POST', '/orders', a, {
        symbol: 'BTCUSDT',
        side: 'buy',
        type: 'limit',
        quantity: '0.01',
        price: '30000',
      });
      jest
        .spyOn(RiskClient.prototype, 'send')
        .mockResolvedValue({ ok: false, unavailable: true, published: false });
      expectError(await api('DELETE', `/orders/${r.body.id}`, a), 503, 'SERVICE_UNAVAILABLE');
      jest.restoreAllMocks();
      expect((await api('DELETE', `/orders/${r.body.id}`, a)).body).toMatchObject({ status: 'canceled' });
    });
  });

  describe('account, margin mode and collateral', () => {
    it('GET /api/v1/account: balances and positions as the domain computes them', async () => {
      const r = await api('GET', '/account', b);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        address: b.address,
        margin_mode: 'cross',
        vip_tier: 0,
        balances: { asset: 'USDT', wallet_balance: expect.any(String), margin_ratio: expect.any(String) },
        open_orders: 1,
        updated_at: expect.any(String),
      });
      const btc = r.body.positions.find((p: { symbol: string }) => p.symbol === 'BTCUSDT');
      expect(btc).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        side: 'long',
        size: '0.050',
        entry_price: '50000',
        mark_price: '50000',
        notional: '2500.00000000',
        unrealized_pnl: '0.00000000',
        leverage: 20,
        margin_type: 'cross',
        margin: '125.00000000',
        collateral: '0.00000000',
        liquidation_price: expect.any(String),
      });
      // The same numbers the domain gives from the projection.
      const account = (await accountOf(b))!;
      expect(r.body.balances.wallet_balance).toBe(account.walletBalance.toFixed(8));
      expectError(await api('GET', '/account'), 401, 'INVALID_TOKEN');
    });

    it('margin mode: INVALID_MARGIN_MODE, HAS_OPEN_ORDERS, HAS_OPEN_POSITIONS', async () => {
      expectError(
        await api('POST', '/account/margin-mode', d, { margin_mode: 'turbo' }),
        400,
        'INVALID_MARGIN_MODE',
      );
      expectError(await api('POST', '/account/margin-mode', d, {}), 400, 'INVALID_MARGIN_MODE');
      // a has open orders (and positions: orders are checked first).
      expectError(
        await api('POST', '/account/margin-mode', a, { margin_mode: 'isolated' }),
        400,
        'HAS_OPEN_ORDERS',
      );
      // c: a position but no open order.
      const cash = await admin('/deposits', { address: c.address, asset: 'USDT', amount: '10000' });
      expect(cash.status).toBe(200);
      const ask = { symbol: 'ETHUSDT', side: 'sell', type: 'limit', quantity: '0.1', price: '3000' };
      expect((await api('POST', '/orders', a, ask)).status).toBe(200);
      const buy = await api('POST', '/orders', c, {
        symbol: 'ETHUSDT',
        side: 'buy',
        type: 'market',
        quantity: '0.1',
      });
      expect(buy.body).toMatchObject({ status: 'filled' });
      expectError(
        await api('POST', '/account/margin-mode', c, { mode: 'UNIFIED' }),
        400,
        'HAS_OPEN_POSITIONS',
      );
    });

    it('margin mode: switches (margin_mode or mode), idempotently', async () => {
      const r = await api('POST', '/account/margin-mode', d, { margin_mode: 'isolated' });
      expect(r).toMatchObject({ status: 200, body: { margin_mode: 'isolated', changed: true } });
      const again = await api('POST', '/account/margin-mode', d, { mode: 'ISOLATED' });
      expect(again).toMatchObject({ status: 200, body: { margin_mode: 'isolated', changed: false } });
      expect((await api('GET', '/account', d)).body.margin_mode).toBe('isolated');
    });

    it('collateral: add and remove on an isolated position; every refusal', async () => {
      const ask = { symbol: 'BTCUSDT', side: 'sell', type: 'limit', quantity: '0.01', price: '50000' };
      expect((await api('POST', '/orders', a, ask)).status).toBe(200);
      const buy = await api('POST', '/orders', d, {
        symbol: 'BTCUSDT',
        side: 'buy',
        type: 'market',
        quantity: '0.01',
      });
      expect(buy.body).toMatchObject({ status: 'filled' });
      const before = (await api('GET', '/account', d)).body;
      const position = before.positions[0];
      expect(position).toMatchObject({ symbol: 'BTCUSDT', margin_type: 'isolated', margin: '25.00000000' });
      const path = (action: string, id = position.id) => `/positions/${id}/collateral/${action}`;

      const added = await api('POST', path('add'), d, { amount: '10' });
      expect(added).toMatchObject({
        status: 200,
        body: {
          position_id: position.id,
          symbol: 'BTCUSDT',
          action: 'add',
          amount: '10',
          collateral: '10.00000000',
          isolated_margin: '35.00000000',
        },
      });
      const removed = await api('POST', path('remove'), d, { amount: '4' });
      expect(removed.body).toMatchObject({
        action: 'remove',
        collateral: '6.00000000',
        isolated_margin: '31.00000000',
      });
      expect((await api('GET', '/account', d)).body.positions[0]).toMatchObject({ collateral: '6.00000000' });

      expectError(await api('POST', path('remove'), d, { amount: '7' }), 400, 'INVALID_AMOUNT');
      expectError(await api('POST', path('add'), d, { amount: '-1' }), 400, 'INVALID_AMOUNT');
      expectError(await api('POST', path('add'), d, { amount: 'ten' }), 400, 'INVALID_AMOUNT');
      expectError(await api('POST', path('add'), d, {}), 400, 'INVALID_AMOUNT');
      expectError(await api('POST', path('add'), d, { amount: '1000000' }), 400, 'INSUFFICIENT_BALANCE');
      expectError(await api('POST', path('add', randomUUID()), d, { amount: '1' }), 404, 'NOT_FOUND');
      // Another user's position id is not theirs to find.
      expectError(await api('POST', path('add'), b, { amount: '1' }), 404, 'NOT_FOUND');
      // A cross account's position has no collateral to move.
      const cross = (await api('GET', '/account', b)).body.positions[0];
      expectError(await api('POST', path('add', cross.id), b, { amount: '1' }), 400, 'INVALID_MARGIN_MODE');
      expectError(await api('POST', path('add'), undefined, { amount: '1' }), 401, 'INVALID_TOKEN');
    });
  });
});
