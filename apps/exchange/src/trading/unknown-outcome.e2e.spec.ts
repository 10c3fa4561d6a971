import { Wallet } from 'ethers';
import { MemoryBus, type SubscribeOptions } from '@perp/bus';
import { ENGINE_GROUP } from '@perp/matching-engine';
import { json, login, signed } from '@perp/testing';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';
/** Long enough for risk to take an order on a loaded machine; the engine is held past it. */
const UPSTREAM_TIMEOUT_MS = 2_000;

/**
 * Holds every delivery to the consumer group `groupId` of the memory bus while paused, as a stalled
 * or failing-over engine would: its partitions wait, nothing is lost. Install before the app starts.
 */
function pausableGroup(groupId: string) {
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const subscribe = MemoryBus.prototype.subscribe;
  jest.spyOn(MemoryBus.prototype, 'subscribe').mockImplementation(function (
    this: MemoryBus,
    options: SubscribeOptions,
  ) {
    if (options.groupId !== groupId) return subscribe.call(this, options);
    const held = <A extends unknown[]>(h?: (...args: A) => void | Promise<void>) =>
      h &&
      (async (...args: A) => {
        await gate;
        await h(...args);
      });
    return subscribe.call(this, {
      ...options,
      handler: held(options.handler),
      batchHandler: held(options.batchHandler),
    });
  });
  return {
    pause: () => (gate = new Promise<void>((r) => (open = r))),
    resume: () => open(),
  };
}

// Issue 18's honest outcomes: an order that reached the log but whose result did not come back in
// time is answered "unknown" (HTTP 503, FAPI -1007, native EXECUTION_STATUS_UNKNOWN), never a plain
// failure; it is executed once the engine catches up, found by its client id, and sending it again
// meanwhile is refused instead of making a second order.
describe('an order whose engine is held past UPSTREAM_TIMEOUT_MS', () => {
  const engine = pausableGroup(ENGINE_GROUP);
  let ex: InProcessExchange;
  let t: Trader;
  let seller: Trader;
  let token: string;

  const order = (clientOrderId: string) =>
    signed(ex.url, '/fapi/v1/order', t.key, {
      method: 'POST',
      params: {
        symbol: BTC,
        side: 'BUY',
        type: 'LIMIT',
        price: '40000',
        quantity: '0.01',
        newClientOrderId: clientOrderId,
      },
    });
  const byClientId = (origClientOrderId: string) =>
    signed(ex.url, '/fapi/v1/order', t.key, { params: { symbol: BTC, origClientOrderId } });
  const openOrders = async () =>
    (await signed(ex.url, '/fapi/v1/openOrders', t.key, { params: { symbol: BTC } })).body as {
      clientOrderId: string;
      status: string;
    }[];

  beforeAll(async () => {
    ex = await startInProcessExchange({ UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) });
    const wallet = Wallet.createRandom();
    t = await newTrader(ex.url, wallet);
    token = await login(ex.url, wallet);
    seller = await newTrader(ex.url);
    await deposit(ex.url, ex.adminToken, t.address, '10000');
    await deposit(ex.url, ex.adminToken, seller.address, '10000');
  }, 60_000);

  afterAll(async () => {
    engine.resume();
    await ex?.close();
    jest.restoreAllMocks();
  });

  it('answers 503 -1007, refuses the same client id while in flight, and executes the order once (an operator pause too)', async () => {
    engine.pause();
    const first = await order('unknown-1');
    expect(first.status).toBe(503);
    expect(first.body).toEqual({
      code: -1007,
      msg: 'Timeout waiting for response from backend server. Send status unknown; execution status unknown.',
    });

    // The client retries with the same id while the first is still in flight: refused, not placed.
    const again = await order('unknown-1');
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: -2014 });

    // The native API says the same of its own orders.
    const native = await json(
      `${ex.url}/api/v1/orders`,
      'POST',
      {
        symbol: BTC,
        side: 'buy',
        type: 'limit',
        quantity: '0.01',
        price: '39000',
        client_order_id: 'unknown-2',
      },
      token,
    );
    expect(native.status).toBe(503);
    expect(native.body).toMatchObject({ code: 'EXECUTION_STATUS_UNKNOWN' });

    // An operator command to the held engine: sent, so its outcome is unknown, not "failed".
    const paused = await adminRequest(ex.url, ex.adminToken, '/markets/ETHUSDT/pause', 'POST');
    expect(paused.status).toBe(503);
    expect(paused.body).toMatchObject({ code: 'EXECUTION_STATUS_UNKNOWN' });

    engine.resume();
    const info = async () =>
      (await json(`${ex.url}/fapi/v1/exchangeInfo`, 'GET')).body as {
        symbols: { symbol: string; status: string }[];
      };
    const halted = await eventually(info, (i) =>
      i.symbols.some((s) => s.symbol === 'ETHUSDT' && s.status === 'HALT'),
    );
    expect(halted.symbols.find((s) => s.symbol === BTC)?.status).toBe('TRADING');
    const found = await eventually(
      () => byClientId('unknown-1'),
      (r) => r.status === 200,
    );
    expect(found.body).toMatchObject({ clientOrderId: 'unknown-1', status: 'NEW', origQty: '0.010' });
    const open = await eventually(openOrders, (o) => o.length === 2);
    expect(open.map((o) => o.clientOrderId).sort()).toEqual(['unknown-1', 'unknown-2']);

    // The engine holds it once: a seller crossing it with twice its size fills exactly its 0.01.
    const sold = await signed(ex.url, '/fapi/v1/order', seller.key, {
      method: 'POST',
      params: { symbol: BTC, side: 'SELL', type: 'LIMIT', price: '40000', quantity: '0.02' },
    });
    expect(sold.status).toBe(200);
    const filled = await eventually(
      () => byClientId('unknown-1'),
      (r) => r.body.status === 'FILLED',
    );
    expect(filled.body).toMatchObject({ status: 'FILLED', executedQty: '0.010' });
    const trades = await signed(ex.url, '/fapi/v1/userTrades', seller.key, { params: { symbol: BTC } });
    expect((trades.body as { qty: string }[]).map((x) => x.qty)).toEqual(['0.010']);
  }, 60_000);
});
