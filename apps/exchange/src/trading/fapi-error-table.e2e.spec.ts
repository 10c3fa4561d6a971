import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PERSISTENCE_DATA_SOURCE } from '@perp/persistence';
import { RiskCommandsConsumer } from '@perp/risk';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { Wallet } from 'ethers';
import type { DataSource } from 'typeorm';
import {
  authError,
  createKey,
  http,
  type HttpResponse,
  json,
  type KeyPair,
  login,
  signed,
  type SignedOptions,
} from '@perp/testing';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';
const ORDERS_PER_10S = 60;
/** A market added by the operator with small order limits (MAX_NUM_ORDERS 2, MAX_NUM_ALGO_ORDERS 1). */
const SMALL = 'ALGOUSDT';
/** Listed with a lot and a tick of 1e-12: the book's integer bounds come before 1e9 units. */
const DUST = 'DUSTUSDT';
const DAY = 24 * 3600_000;

type Row = [name: string, status: number, code: number | string, request: () => Promise<HttpResponse>];

// Every row of the spec's FAPI error tables that the trading, account and public market-data
// endpoints can produce, each with a request that produces it, asserting HTTP status, envelope and
// code. (Every market-data endpoint's -1120 and -1121 rows: apps/gateway/src/fapi/market.)
describe('FAPI error tables, row by row', () => {
  let ex: InProcessExchange;
  let t: Trader;
  let maker: Trader;
  let poor: Trader;
  let hammer: Trader;
  let algoT: Trader;
  let full: Trader;
  let failedAlgoId: number;
  let token: string;

  const req = (who: Trader | KeyPair, path: string, o: SignedOptions = {}) =>
    signed(ex.url, `/fapi/${path}`, 'key' in who ? who.key : who, o);
  const post = (who: Trader, path: string, params: Record<string, string>) =>
    req(who, path, { method: 'POST', params });
  const order = (who: Trader, params: Record<string, string>) =>
    post(who, 'v1/order', {
      symbol: BTC,
      side: 'BUY',
      type: 'LIMIT',
      price: '49000',
      quantity: '0.01',
      ...params,
    });

  const algo = (who: Trader, params: Record<string, string>) =>
    post(who, 'v1/algoOrder', {
      symbol: BTC,
      side: 'BUY',
      type: 'STOP_MARKET',
      triggerPrice: '51000',
      quantity: '0.01',
      ...params,
    });
  const ok = async (r: Promise<HttpResponse>) => {
    const done = await r;
    expect({ status: done.status, body: done.body }).toMatchObject({ status: 200 });
    return done;
  };

  /** ALGOUSDT: algoT holds its one waiting algo order, full its two open orders, poor a FAILED algo order. */
  async function smallMarket(): Promise<void> {
    const chain = JSON.parse(
      readFileSync(join(__dirname, '../../../../deploy/chains/devnet/chain.json'), 'utf8'),
    ) as { markets: Record<string, unknown>[] };
    const { referencePrice: _ref, ...btc } = chain.markets.find((m) => m.symbol === BTC)!;
    void _ref;
    const market = { ...btc, symbol: SMALL, baseAsset: 'ALGO', maxOpenOrders: 2, maxAlgoOrders: 1, rank: 99 };
    expect((await adminRequest(ex.url, ex.adminToken, '/markets', 'POST', market)).status).toBe(200);
    const steps = '0.000000000001';
    const dust = { ...btc, symbol: DUST, baseAsset: 'DUST', lotSize: steps, tickSize: steps, rank: 98 };
    expect((await adminRequest(ex.url, ex.adminToken, '/markets', 'POST', dust)).status).toBe(200);
    expect(
      (await adminRequest(ex.url, ex.adminToken, `/prices/${SMALL}`, 'POST', { indexPrice: '50000' })).status,
    ).toBe(200);
    [algoT, full] = [await newTrader(ex.url), await newTrader(ex.url)];
    for (const who of [algoT, full]) await deposit(ex.url, ex.adminToken, who.address, '10000');
    const first = await eventually(
      () => algo(algoT, { symbol: SMALL }),
      (r) => r.status === 200,
    );
    expect(first.status).toBe(200);
    for (const price of ['49000', '48000']) await ok(order(full, { symbol: SMALL, price }));
    // 0.01 at 50100 needs about 25 USDT of margin at firing: poor has 10.
    const doomed = await ok(algo(poor, { symbol: SMALL, triggerPrice: '50100' }));
    failedAlgoId = doomed.body.algoId as number;
    expect(
      (await adminRequest(ex.url, ex.adminToken, `/prices/${SMALL}`, 'POST', { indexPrice: '50200' })).status,
    ).toBe(200);
    await eventually(
      async () => (await req(poor, 'v1/algoOrder', { params: { algoId: String(failedAlgoId) } })).body,
      (b) => (b as { algoStatus?: string }).algoStatus === 'FAILED',
    );
  }

  beforeAll(async () => {
    ex = await startInProcessExchange({
      RATE_LIMIT_ORDERS_PER_10S: String(ORDERS_PER_10S),
      UPSTREAM_TIMEOUT_MS: '1500',
    });
    const wallet = Wallet.createRandom();
    token = await login(ex.url, wallet);
    t = { address: wallet.address.toLowerCase(), key: await createKey(ex.url, token) };
    [maker, poor, hammer] = [await newTrader(ex.url), await newTrader(ex.url), await newTrader(ex.url)];
    await deposit(ex.url, ex.adminToken, t.address, '10000');
    await deposit(ex.url, ex.adminToken, maker.address, '10000');
    await deposit(ex.url, ex.adminToken, poor.address, '10');
    expect(
      (await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', { indexPrice: '50000' })).status,
    ).toBe(200);
    // A resting ask for the GTX row; a resting bid of t's for the duplicate client id row.
    expect((await order(maker, { side: 'SELL', price: '50100' })).status).toBe(200);
    expect((await order(t, { newClientOrderId: 'resting-1' })).status).toBe(200);
    await smallMarket();
  });

  afterAll(async () => {
    await ex?.close();
  });

  const business: Row[] = [
    ['quantity below one lot', 400, -1013, () => order(t, { quantity: '0.0001' })],
    ['notional above the maximum order size', 400, -1013, () => order(t, { quantity: '200' })],
    [
      'quantity above the maximum (2^40 lots)',
      400,
      -1013,
      () => order(t, { symbol: DUST, price: '5', quantity: '2' }),
    ],
    ['timestamp 61 s old', 400, -1021, () => req(t, 'v2/account', { timestamp: Date.now() - 61_000 })],
    ['timestamp 61 s ahead', 400, -1021, () => req(t, 'v2/account', { timestamp: Date.now() + 61_000 })],
    ['unparseable quantity', 400, -1100, () => order(t, { quantity: '1e-3x' })],
    ['price of 1,500 digits', 400, -1100, () => order(t, { price: '6'.repeat(1_500) })],
    ['bad client order id characters', 400, -1100, () => order(t, { newClientOrderId: 'no spaces' })],
    ['unparseable orderId', 400, -1100, () => req(t, 'v1/order', { params: { symbol: BTC, orderId: 'x' } })],
    ['missing symbol', 400, -1102, () => post(t, 'v1/order', { side: 'BUY', type: 'MARKET', quantity: '1' })],
    ['LIMIT without price', 400, -1102, () => order(t, { price: '' })],
    ['unsupported timeInForce', 400, -1102, () => order(t, { timeInForce: 'GTD' })],
    ['batchOrders missing', 400, -1102, () => post(t, 'v1/batchOrders', {})],
    ['batchOrders not JSON', 400, -1102, () => post(t, 'v1/batchOrders', { batchOrders: '[{' })],
    [
      'batchOrders above 5',
      400,
      -1102,
      () => post(t, 'v1/batchOrders', { batchOrders: JSON.stringify(Array(6).fill({})) }),
    ],
    [
      'modify with the other side',
      400,
      -1102,
      () =>
        req(t, 'v1/order', {
          method: 'PUT',
          params: {
            symbol: BTC,
            origClientOrderId: 'resting-1',
            side: 'SELL',
            quantity: '0.01',
            price: '48000',
          },
        }),
    ],
    ['quantity with quoteOrderQty', 400, -1106, () => order(t, { quoteOrderQty: '500' })],
    ['symbol not configured', 400, -1121, () => order(t, { symbol: 'NOPEUSDT' })],
    ['depth of a symbol not configured', 400, -1121, () => http(`${ex.url}/fapi/v1/depth?symbol=NOPEUSDT`)],
    [
      'klines of an unknown interval',
      400,
      -1120,
      () => http(`${ex.url}/fapi/v1/klines?symbol=${BTC}&interval=2m`),
    ],
    ['keepalive without a listen key', 404, -1125, () => req(t, 'v1/listenKey', { method: 'PUT' })],
    ['unknown side', 400, -1130, () => order(t, { side: 'UP' })],
    ['unknown type', 400, -1130, () => order(t, { type: 'ICEBERG' })],
    ['unknown positionSide', 400, -1130, () => order(t, { positionSide: 'MIDDLE' })],
    ['GTX that would take', 400, -2010, () => order(t, { price: '50200', timeInForce: 'GTX' })],
    [
      'price above the maximum (2^48 ticks)',
      400,
      -2010,
      () => order(t, { symbol: DUST, price: '1000', quantity: '0.1' }),
    ],
    [
      'cancel of an order the engine does not hold',
      400,
      -2011,
      () => req(t, 'v1/order', { method: 'DELETE', params: { symbol: BTC, orderId: randomUUID() } }),
    ],
    [
      'query of an unknown order',
      404,
      -2013,
      () => req(t, 'v1/order', { params: { symbol: BTC, orderId: randomUUID() } }),
    ],
    [
      'modify of an unknown order',
      404,
      -2013,
      () =>
        req(t, 'v1/order', {
          method: 'PUT',
          params: { symbol: BTC, orderId: randomUUID(), side: 'BUY', quantity: '0.01', price: '48000' },
        }),
    ],
    ['client order id of an active order', 400, -2014, () => order(t, { newClientOrderId: 'resting-1' })],
    ['margin above the available balance', 400, -2019, () => order(poor, { quantity: '0.1' })],
    [
      'trigger already satisfied',
      400,
      -2021,
      () => order(t, { type: 'STOP_MARKET', price: '', stopPrice: '51000', side: 'SELL' }),
    ],
    ['reduceOnly without a position', 400, -2022, () => order(t, { reduceOnly: 'true' })],
    [
      'leverage above the market maximum',
      400,
      -4028,
      () => post(t, 'v1/leverage', { symbol: BTC, leverage: '126' }),
    ],
    [
      'marginType ISOLATED',
      400,
      -4046,
      () => post(t, 'v1/marginType', { symbol: BTC, marginType: 'ISOLATED' }),
    ],
    ['hedge mode', 400, -4059, () => post(t, 'v1/positionSide/dual', { dualSidePosition: 'true' })],

    // The algo section: POST and DELETE /fapi/v1/algoOrder, the algo queries.
    ['algo: unparseable quantity', 400, -1100, () => algo(t, { quantity: '1x' })],
    [
      'algo: callbackRate above 10',
      400,
      -1100,
      () => algo(t, { type: 'TRAILING_STOP_MARKET', triggerPrice: '', callbackRate: '10.5' }),
    ],
    [
      'algo: callbackRate below 0.1',
      400,
      -1100,
      () => algo(t, { type: 'TRAILING_STOP_MARKET', triggerPrice: '', callbackRate: '0.09' }),
    ],
    [
      'algo: goodTillDate less than 600 s ahead',
      400,
      -1100,
      () => algo(t, { timeInForce: 'GTD', goodTillDate: String(Date.now() + 500_000) }),
    ],
    ['algo: refused by the engine (below one lot)', 400, -1100, () => algo(t, { quantity: '0.0001' })],
    [
      'algo: query window above 7 days',
      400,
      -1100,
      () =>
        req(t, 'v1/allAlgoOrders', {
          params: { symbol: BTC, startTime: String(Date.now() - 8 * DAY), endTime: String(Date.now()) },
        }),
    ],
    ['algo: missing triggerPrice', 400, -1102, () => algo(t, { triggerPrice: '' })],
    ['algo: STOP without price', 400, -1102, () => algo(t, { type: 'STOP' })],
    ['algo: missing quantity', 400, -1102, () => algo(t, { quantity: '' })],
    [
      'algo: trailing stop without callbackRate',
      400,
      -1102,
      () => algo(t, { type: 'TRAILING_STOP_MARKET', triggerPrice: '' }),
    ],
    ['algo: GTD without goodTillDate', 400, -1102, () => algo(t, { timeInForce: 'GTD' })],
    ['algo: cancel without an id', 400, -1102, () => req(t, 'v1/algoOrder', { method: 'DELETE' })],
    ['algo: closePosition with quantity', 400, -1106, () => algo(t, { closePosition: 'true' })],
    [
      'algo: closePosition with reduceOnly',
      400,
      -1106,
      () => algo(t, { closePosition: 'true', quantity: '', reduceOnly: 'true' }),
    ],
    [
      'algo: closePosition on a STOP',
      400,
      -1106,
      () => algo(t, { closePosition: 'true', quantity: '', type: 'STOP', price: '51000' }),
    ],
    ['algo: symbol not configured', 400, -1121, () => algo(t, { symbol: 'NOPEUSDT' })],
    ['algo: unknown algoType', 400, -1130, () => algo(t, { algoType: 'VP' })],
    ['algo: unknown side', 400, -1130, () => algo(t, { side: 'UP' })],
    ['algo: unknown type', 400, -1130, () => algo(t, { type: 'LIMIT' })],
    ['algo: positionSide other than BOTH', 400, -1130, () => algo(t, { positionSide: 'LONG' })],
    [
      'algo: trigger-order limit reached',
      400,
      -2010,
      () => algo(algoT, { symbol: SMALL, triggerPrice: '52000' }),
    ],
    [
      'algo: cancel of a FAILED algo order',
      400,
      -2011,
      () => req(poor, 'v1/algoOrder', { method: 'DELETE', params: { algoId: String(failedAlgoId) } }),
    ],
    [
      'algo: cancel of an unknown algo order',
      404,
      -2013,
      () => req(t, 'v1/algoOrder', { method: 'DELETE', params: { algoId: '424242' } }),
    ],
    [
      'algo: query of an unknown algo order',
      404,
      -2013,
      () => req(t, 'v1/algoOrder', { params: { algoId: '1' } }),
    ],
    ['algo: would trigger immediately', 400, -2021, () => algo(t, { side: 'SELL' })],
    // Binance's -2025, beyond the spec's table: the symbol's MAX_NUM_ORDERS open orders reached.
    ['open-order limit reached (order)', 400, -2025, () => order(full, { symbol: SMALL, price: '47000' })],
    ['open-order limit reached (algo)', 400, -2025, () => algo(full, { symbol: SMALL })],
  ];

  it.each(business)('%s: %i {code: %i, msg}', async (_name, status, code, request) => {
    const r = await request();
    expect({ status: r.status, body: r.body }).toEqual({ status, body: { code, msg: expect.any(String) } });
  });

  it("names the maximum a market of very small steps holds (exchangeInfo's LOT_SIZE and PRICE_FILTER)", async () => {
    const info = (await http(`${ex.url}/fapi/v1/exchangeInfo`)).body as {
      symbols: { symbol: string; filters: { filterType: string; maxQty?: string; maxPrice?: string }[] }[];
    };
    const filters = info.symbols.find((x) => x.symbol === DUST)!.filters;
    expect(filters.find((f) => f.filterType === 'LOT_SIZE')?.maxQty).toBe('1.099511627776');
    expect(filters.find((f) => f.filterType === 'PRICE_FILTER')?.maxPrice).toBe('281.474976710656');
    expect((await order(t, { symbol: DUST, price: '5', quantity: '2' })).body).toEqual({
      code: -1013,
      msg: 'quantity above the maximum 1.099511627776',
    });
    expect((await order(t, { symbol: DUST, price: '1000', quantity: '0.1' })).body).toEqual({
      code: -2010,
      msg: 'price above the maximum 281.474976710656',
    });
  });

  it('order count above the ceiling: 429 -1003 with the count headers', async () => {
    let last: HttpResponse | undefined;
    for (let i = 0; i <= ORDERS_PER_10S; i++) last = await order(hammer, { symbol: 'NOPEUSDT' });
    expect({ status: last!.status, body: last!.body }).toEqual({
      status: 429,
      body: { code: -1003, msg: expect.any(String) },
    });
    expect(last!.headers['x-mbx-order-count-10s']).toBe(String(ORDERS_PER_10S));
  });

  it.each([
    [
      'key not found',
      401,
      'INVALID_API_KEY',
      () => req({ api_key: 'a'.repeat(64), secret_key: 'x' }, 'v2/account'),
    ],
    ['HMAC mismatch', 401, 'SIGNATURE_INVALID', () => req(t, 'v2/account', { secret: 'not-the-secret' })],
    ['missing timestamp', 401, 'SIGNATURE_INVALID', () => req(t, 'v2/account', { omitTimestamp: true })],
  ] as Row[])('%s: %i auth envelope %s', async (_name, status, code, request) => {
    const r = await request();
    expect({ status: r.status, body: r.body }).toEqual({ status, body: authError(code as string) });
  });

  it('a disabled key: 401 API_KEY_DISABLED; a key whose whitelist lacks the client: 403 IP_NOT_ALLOWED', async () => {
    const k = await createKey(ex.url, token, { label: 'to disable' });
    expect(
      (await json(`${ex.url}/api/v1/api-keys/${k.id}`, 'PUT', { status: 'disabled' }, token)).status,
    ).toBe(200);
    const disabled = await req(k, 'v2/account');
    expect({ status: disabled.status, body: disabled.body }).toEqual({
      status: 401,
      body: authError('API_KEY_DISABLED'),
    });
    const fenced = await createKey(ex.url, token, { ip_whitelist: '10.0.0.1' });
    const refused = await req(fenced, 'v2/account');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: authError('IP_NOT_ALLOWED'),
    });
  });

  it('no refused request changed the account: one resting order, the whole deposit', async () => {
    const open = (await req(t, 'v1/openOrders', { params: { symbol: BTC } })).body as {
      clientOrderId: string;
    }[];
    expect(open.map((o) => o.clientOrderId)).toEqual(['resting-1']);
    const account = (await req(t, 'v2/account')).body as { totalWalletBalance: string; positions: unknown[] };
    expect(account.totalWalletBalance).toMatch(/^10000(\.0+)?$/);
  });

  // Last: these two break the exchange on purpose.
  it('a database failure on fundingFeeHistory: 500 -1000, no stack', async () => {
    const db = ex.app.get<DataSource>(PERSISTENCE_DATA_SOURCE);
    await db.query('ALTER TABLE income RENAME TO income_unavailable');
    try {
      const r = await req(t, 'v1/fundingFeeHistory');
      expect({ status: r.status, body: r.body }).toEqual({
        status: 500,
        body: { code: -1000, msg: expect.any(String) },
      });
      expect(r.text).not.toMatch(/at |QueryFailedError|income_unavailable/);
    } finally {
      await db.query('ALTER TABLE income_unavailable RENAME TO income');
    }
  });

  it('the order service does not answer a sent order: 503 -1007, its outcome unknown', async () => {
    await ex.app.get(RiskCommandsConsumer).onModuleDestroy();
    const r = await order(t, {});
    expect({ status: r.status, body: r.body }).toEqual({
      status: 503,
      body: { code: -1007, msg: expect.stringContaining('execution status unknown') },
    });
  });
});
