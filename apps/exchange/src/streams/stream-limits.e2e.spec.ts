import { CLOSE, DEFAULT_STREAM_LIMITS, StreamServer } from '@perp/gateway';
import { signed } from '@perp/testing';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import type { Trader } from '../trading/trading.harness';
import { StreamClient, UpgradeRefused } from './stream-client.harness';
import { tradingExchange } from './streams.harness';

jest.setTimeout(60_000);

// Limits of the stream server, each shortened on the running instance for its test.
describe('stream server limits', () => {
  let ex: InProcessExchange | undefined;
  let server: StreamServer;
  let t: Trader;
  const clients: StreamClient[] = [];
  const open = async (path: string, options = {}) => {
    const c = await StreamClient.open(ex!.url, path, options);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    const started = await tradingExchange(1, '10000');
    ex = started.ex;
    t = started.traders[0]!;
    server = ex.app.get(StreamServer);
  });

  afterEach(async () => {
    Object.assign(server.limits, DEFAULT_STREAM_LIMITS);
    server.restartTimers();
    for (const c of clients.splice(0)) if (!c.closed) await c.close();
  });

  afterAll(async () => {
    await ex?.close();
  });

  it('a client that cannot take an event within its buffer is closed with a reason; the others get it', async () => {
    server.limits.maxBufferedBytes = 1;
    const slow = await open('/ws/btcusdt@bookTicker');
    server.limits.maxBufferedBytes = DEFAULT_STREAM_LIMITS.maxBufferedBytes;
    const healthy = await open('/ws/btcusdt@bookTicker');
    const r = await signed(ex!.url, '/fapi/v1/order', t.key, {
      method: 'POST',
      params: {
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'GTC',
        quantity: '0.01',
        price: '49000',
      },
    });
    expect(r.status).toBe(200);
    expect(await slow.whenClosed()).toEqual({
      code: CLOSE.slowClient,
      reason: 'slow client: send buffer full',
    });
    expect(await healthy.next((m) => m.e === 'bookTicker')).toMatchObject({ s: 'BTCUSDT', b: '49000.0' });
    expect(slow.received).toEqual([]);
  });

  it('connections per IP: one over the limit is refused with 429', async () => {
    server.limits.maxConnectionsPerIp = 2;
    await open('/ws');
    await open('/stream');
    await expect(StreamClient.open(ex!.url, '/ws')).rejects.toEqual(
      new UpgradeRefused(429, JSON.stringify({ code: -1, msg: 'Too many connections from this IP.' })),
    );
    await clients[0]!.close();
    // The slot is free again once the server saw the close.
    for (let i = 0; i < 200; i++) {
      const c = await StreamClient.open(ex!.url, '/ws').catch(() => undefined);
      if (c) {
        clients.push(c);
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(clients.filter((c) => !c.closed)).toHaveLength(2);
  });

  it('streams per connection: a SUBSCRIBE past the limit is refused whole, in the URL too', async () => {
    server.limits.maxStreamsPerConnection = 2;
    const c = await open('/ws/btcusdt@trade');
    expect(
      await c.request({ method: 'SUBSCRIBE', params: ['btcusdt@aggTrade', 'btcusdt@trade'], id: 1 }),
    ).toEqual({ result: null, id: 1 });
    expect(await c.request({ method: 'SUBSCRIBE', params: ['btcusdt@bookTicker'], id: 2 })).toEqual({
      error: { code: 2, msg: 'Invalid request: too many streams (at most 2)' },
      id: 2,
    });
    expect(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 3 })).toEqual({
      result: ['btcusdt@trade', 'btcusdt@aggTrade'],
      id: 3,
    });
    await expect(
      StreamClient.open(ex!.url, '/stream?streams=btcusdt@trade/btcusdt@aggTrade/btcusdt@bookTicker'),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('requests per second: a client past the limit is closed with 1008', async () => {
    server.limits.requestsPerSecond = 3;
    const c = await open('/ws');
    for (let i = 0; i < 10; i++) c.send({ method: 'LIST_SUBSCRIPTIONS', id: i });
    expect(await c.whenClosed()).toEqual({ code: CLOSE.policy, reason: 'too many requests' });
  });

  it('ping/pong: a client that does not answer pings is closed; one that does stays', async () => {
    const mute = await open('/ws', { autoPong: false });
    const live = await open('/ws');
    server.limits.pingIntervalMs = 100;
    server.restartTimers();
    expect(await mute.whenClosed()).toEqual({ code: CLOSE.policy, reason: 'no pong' });
    expect(await live.request({ method: 'LIST_SUBSCRIPTIONS', id: 1 })).toEqual({ result: [], id: 1 });
    expect(live.closed).toBeUndefined();
  });

  it('a connection is closed with 4001 once its configured lifetime is over (WS_CONNECTION_LIFETIME_MS)', async () => {
    const short = await startInProcessExchange({ WS_CONNECTION_LIFETIME_MS: '1000' });
    try {
      expect(short.app.get(StreamServer).limits.lifetimeMs).toBe(1000);
      const c = await StreamClient.open(short.url, '/ws/btcusdt@trade');
      expect(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 1 })).toEqual({
        result: ['btcusdt@trade'],
        id: 1,
      });
      expect(await c.whenClosed()).toEqual({ code: CLOSE.expired, reason: 'connection lifetime reached' });
    } finally {
      await short.close();
    }
    // The default is Binance's 24 hours.
    expect(server.limits.lifetimeMs).toBe(24 * 3600_000);
  });

  it('shutdown closes every socket with 1001', async () => {
    const c = await open('/ws/btcusdt@trade');
    const closing = c.whenClosed();
    await ex!.close();
    ex = undefined;
    expect(await closing).toEqual({ code: CLOSE.shutdown, reason: 'server shutting down' });
  });
});
