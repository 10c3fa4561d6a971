import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, userIdForAddress } from '@perp/contracts';
import { OrderRepository } from '@perp/persistence';
import { HistoryProjector } from '@perp/risk';
import { createKey, json, login, signed } from '@perp/testing';
import { Wallet } from 'ethers';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { deposit, eventually } from './trading.harness';

// An order that is no longer open, once its closed-order hot record has expired
// (CLOSED_ORDER_TTL_MS): the order history row answers, read after the history projector has
// caught up with the caller's account events, on both surfaces; still behind after
// UPSTREAM_TIMEOUT_MS, the surface's "try again" error.
describe('order lookup from history waits for the projector', () => {
  let ex: InProcessExchange;
  let token: string;
  let address: string;
  let key: Awaited<ReturnType<typeof createKey>>;

  const api = (method: string, path: string, body?: unknown) =>
    json(`${ex.url}/api/v1${path}`, method, body, token);
  const projector = () => ex.app.get(HistoryProjector, { strict: false });
  /** The projector joins again, as at boot, and catches up. */
  const resumeProjector = async () => {
    projector().onModuleInit();
    await projector().onApplicationBootstrap();
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({ UPSTREAM_TIMEOUT_MS: '1500' });
    const wallet = Wallet.createRandom();
    address = wallet.address.toLowerCase();
    token = await login(ex.url, wallet);
    key = await createKey(ex.url, token, { label: 'lookup' });
    await deposit(ex.url, ex.adminToken, address, '10000');
  });

  afterAll(async () => {
    await ex?.close();
  });

  /** A resting order, projected, then canceled while the projector is stopped; its hot record gone. */
  async function canceledBehindTheProjector(): Promise<string> {
    const placed = await api('POST', '/orders', {
      symbol: 'BTCUSDT',
      side: 'buy',
      type: 'limit',
      quantity: '0.01',
      price: '30000',
    });
    expect(placed.status).toBe(200);
    const id = (placed.body as { id: string }).id;
    const orders = ex.app.get(OrderRepository);
    await eventually(
      () => orders.findById(id),
      (row) => row?.status === 'NEW',
    );
    await projector().onModuleDestroy();
    expect((await api('DELETE', `/orders/${id}`)).body).toMatchObject({ id, status: 'canceled' });
    await ex.app.get<HotStore>(HOT_STORE).del(HOT_KEYS.closedOrder(id));
    expect((await orders.findById(id))?.status).toBe('NEW');
    expect((await orders.findById(id))?.userId).toBe(userIdForAddress(address));
    return id;
  }

  it('answers the order as it closed once the projector has written it', async () => {
    const id = await canceledBehindTheProjector();
    const read = api('GET', `/orders/${id}`);
    await new Promise((r) => setTimeout(r, 200));
    await resumeProjector();
    const r = await read;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, status: 'canceled' });
  });

  it('FAPI GET /fapi/v1/order waits too: -1001 while the projector stays behind, then the order', async () => {
    const fapi = (orderId: string) =>
      signed(ex.url, '/fapi/v1/order', key, { params: { symbol: 'BTCUSDT', orderId } });
    const id = await canceledBehindTheProjector();
    try {
      expect(await fapi(id)).toMatchObject({ status: 500, body: { code: -1001, msg: expect.any(String) } });
    } finally {
      await resumeProjector();
    }
    expect((await fapi(id)).body).toMatchObject({ orderId: id, status: 'CANCELED' });
  });

  it('is 503 SERVICE_UNAVAILABLE while the projector stays behind past the upstream timeout', async () => {
    const id = await canceledBehindTheProjector();
    try {
      const r = await api('GET', `/orders/${id}`);
      expect([r.status, r.body]).toEqual([503, { error: expect.any(String), code: 'SERVICE_UNAVAILABLE' }]);
    } finally {
      await resumeProjector();
    }
    const after = await api('GET', `/orders/${id}`);
    expect(after.body).toMatchObject({ id, status: 'canceled' });
  });
});
