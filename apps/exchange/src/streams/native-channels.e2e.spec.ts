import { Wallet } from 'ethers';
import { Bus } from '@perp/bus';
import { TOPICS } from '@perp/contracts';
import { CLOSE, DEFAULT_STREAM_LIMITS, NATIVE_SERVER_FRAMES, StreamHub, StreamServer } from '@perp/gateway';
import { http, json, login, signed } from '@perp/testing';
import type { InProcessExchange } from '../testing/in-process-exchange';
import { deposit, eventually, newTrader, type Trader } from '../trading/trading.harness';
import { FrameConformance } from './frame-conformance.harness';
import { type Frame, StreamClient, StreamClients, UpgradeRefused } from './stream-client.harness';
import { tradingExchange } from './streams.harness';

jest.setTimeout(60_000);

const BTC = 'BTCUSDT';

/** A funded trader with its login token (JWT) too. */
interface NativeTrader extends Trader {
  token: string;
}

// Over 400 lines: one embedded exchange serves every native channel case (each start costs seconds).
// The native channels at /api/v1/ws: public ones from the same feeds as the Binance streams,
// private ones with the JWT, and the one-error-frame answer to a bad request.
describe('native WebSocket channels (/api/v1/ws)', () => {
  let ex: InProcessExchange;
  let maker: Trader;
  let taker: Trader;
  let alice: NativeTrader;
  let bob: NativeTrader;
  const clients = new StreamClients(() => ex.url);
  const conformance = new FrameConformance(NATIVE_SERVER_FRAMES);
  const open = async (query = '') => conformance.watch(await clients.open(`/api/v1/ws${query}`));
  const order = (t: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method: 'POST', params: { symbol: BTC, ...params } });
  const nativeTrader = async (): Promise<NativeTrader> => {
    const wallet = Wallet.createRandom();
    const t = await newTrader(ex.url, wallet);
    await deposit(ex.url, ex.adminToken, t.address, '10000');
    return { ...t, token: await login(ex.url, wallet) };
  };
  /** Sends a request and waits for the frame answering its id. */
  const ask = (c: StreamClient, body: Record<string, unknown>) => c.request(body) as Promise<Frame>;

  beforeAll(async () => {
    let traders: Trader[];
    ({ ex, traders } = await tradingExchange(2, '1000000'));
    [maker, taker] = traders as [Trader, Trader];
    alice = await nativeTrader();
    bob = await nativeTrader();
  });

  afterAll(async () => {
    await clients.closeAll();
    await ex?.close();
  });

  it('public channels: aliases normalized, the ack echoes the names as sent, events come under them', async () => {
    const c = await open();
    const channels = ['ticker:btc-usd', 'trades:BTC/USDT', 'kline:btc_usdt:1m'];
    expect(await ask(c, { op: 'subscribe', channels, id: 1 })).toEqual({
      type: 'subscribed',
      channels,
      id: 1,
    });
    expect(await ask(c, { op: 'list', id: 2 })).toEqual({ type: 'subscriptions', channels, id: 2 });
    expect(
      (
        await order(maker, {
          side: 'SELL',
          type: 'LIMIT',
          timeInForce: 'GTC',
          quantity: '0.2',
          price: '50000',
        })
      ).status,
    ).toBe(200);
    expect((await order(taker, { side: 'BUY', type: 'MARKET', quantity: '0.2' })).status).toBe(200);
    const trade = await c.next((m) => m.channel === 'trades:BTC/USDT');
    expect(trade).toEqual({
      type: 'update',
      channel: 'trades:BTC/USDT',
      data: {
        id: expect.any(Number),
        symbol: BTC,
        price: '50000.0',
        quantity: '0.200',
        side: 'buy',
        time: expect.any(Number),
      },
    });
    const ticker = await c.next((m) => m.channel === 'ticker:btc-usd' && m.data.trade_count > 0);
    expect(ticker.data).toMatchObject({
      symbol: BTC,
      last_price: '50000.0',
      volume: '0.200',
      quote_volume: '10000',
    });
    const kline = await c.next((m) => m.channel === 'kline:btc_usdt:1m' && m.data.trade_count > 0);
    expect(kline.data).toMatchObject({
      symbol: BTC,
      interval: '1m',
      close: '50000.0',
      volume: '0.200',
      closed: false,
    });
    expect(await ask(c, { op: 'unsubscribe', channels: ['trades:BTC/USDT'], id: 3 })).toEqual({
      type: 'unsubscribed',
      channels: ['trades:BTC/USDT'],
      id: 3,
    });
    expect(await ask(c, { op: 'list', id: 4 })).toEqual({
      type: 'subscriptions',
      channels: ['ticker:btc-usd', 'kline:btc_usdt:1m'],
      id: 4,
    });
    expect(await ask(c, { op: 'ping', id: 5 })).toEqual({ type: 'pong', time: expect.any(Number), id: 5 });
  });

  it('markPrice:<symbol> from the prices topic', async () => {
    const c = await open();
    await ask(c, { op: 'subscribe', channels: ['markPrice:BTC-USD'], id: 1 });
    await ex.app.get(Bus).publish(TOPICS.prices.name, BTC, {
      id: 'native-mark-1',
      v: 1,
      time: Date.now(),
      type: 'price.mark',
      symbol: BTC,
      markPrice: '50020.5',
      indexPrice: '50000',
      lastPrice: '50000',
      premiumIndex: '0',
      fundingRate: '0.0001',
      interestRate: '0.0001',
      nextFundingTime: 1_800_000_000_000,
    });
    const mark = await c.next(
      (m) => m.channel === 'markPrice:BTC-USD' && m.data.mark_price === '50020.50000000',
    );
    expect(mark.data).toEqual({
      symbol: BTC,
      mark_price: '50020.50000000',
      index_price: '50000.00000000',
      funding_rate: '0.00010000',
      next_funding_time: 1_800_000_000_000,
      time: expect.any(Number),
    });
  });

  it.each([
    [['foo:BTCUSDT'], 'INVALID_CHANNEL', 'Invalid channel foo:BTCUSDT.'],
    [['ticker:BTCUSDT', 'kline:BTCUSDT:7m'], 'INVALID_CHANNEL', 'Invalid channel kline:BTCUSDT:7m.'],
    [
      ['ticker:BTCUSDT', 'ticker:DOGE-USD'],
      'INVALID_SYMBOL',
      'No market DOGEUSDT (channel ticker:DOGE-USD).',
    ],
    [
      ['ticker:BTCUSDT', 'orders'],
      'INVALID_TOKEN',
      'Channel orders is private: authenticate first ({"op":"auth","token":"<JWT>"} or ?token= at connect).',
    ],
  ])(
    'a bad subscription %p is answered with one error frame and subscribes nothing',
    async (channels, code, error) => {
      const c = await open();
      expect(await ask(c, { op: 'subscribe', channels, id: 9 })).toEqual({
        type: 'error',
        code,
        error,
        id: 9,
      });
      expect(await ask(c, { op: 'list', id: 10 })).toEqual({ type: 'subscriptions', channels: [], id: 10 });
      // A good subscription after it: its first frame comes, and nothing of the refused request.
      await ask(c, { op: 'subscribe', channels: ['ticker:ETHUSDT'], id: 11 });
      await c.next((m) => m.channel === 'ticker:ETHUSDT');
      expect(c.received).toEqual([]);
    },
  );

  it('malformed requests get an error frame; the connection stays usable', async () => {
    const c = await open();
    c.send('not json');
    expect(await c.next((m) => m.type === 'error')).toEqual({
      type: 'error',
      code: 'INVALID_REQUEST',
      error: 'Invalid JSON.',
    });
    expect(await ask(c, { op: 'nuke', id: 'x' })).toEqual({
      type: 'error',
      code: 'INVALID_REQUEST',
      error: 'op must be one of subscribe, unsubscribe, auth, list, ping.',
      id: 'x',
    });
    expect(await ask(c, { op: 'unsubscribe', channels: ['nope'], id: 2 })).toMatchObject({
      code: 'INVALID_CHANNEL',
      id: 2,
    });
    expect(await ask(c, { op: 'ping', id: 3 })).toMatchObject({ type: 'pong' });
  });

  it('the same per-connection channel limit as the Binance streams', async () => {
    const server = ex.app.get(StreamServer);
    const before = server.limits.maxStreamsPerConnection;
    server.limits.maxStreamsPerConnection = 2;
    try {
      const c = await open();
      expect(
        await ask(c, {
          op: 'subscribe',
          channels: ['ticker:BTCUSDT', 'trades:BTCUSDT', 'ticker:ETHUSDT'],
          id: 1,
        }),
      ).toEqual({
        type: 'error',
        code: 'LIMIT_REACHED',
        error: 'At most 2 channels.',
        id: 1,
      });
      // An alias of a channel it holds is the same channel: no new one counted.
      await ask(c, { op: 'subscribe', channels: ['ticker:BTCUSDT', 'trades:BTCUSDT'], id: 2 });
      expect(await ask(c, { op: 'subscribe', channels: ['ticker:btc-usd'], id: 3 })).toMatchObject({
        type: 'subscribed',
      });
    } finally {
      server.limits.maxStreamsPerConnection = before;
    }
  });

  describe('private channels with the JWT', () => {
    it('refuses a bad token at connect (401 INVALID_TOKEN) and by op auth (error frame, still connected)', async () => {
      const refused = await open('?token=not-a-jwt').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UpgradeRefused);
      expect(refused).toMatchObject({ status: 401 });
      expect(JSON.parse((refused as UpgradeRefused).body)).toEqual({
        error: 'Invalid token.',
        code: 'INVALID_TOKEN',
      });
      const c = await open();
      const forged = alice.token.slice(0, -4) + (alice.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      expect(await ask(c, { op: 'auth', token: forged, id: 1 })).toEqual({
        type: 'error',
        code: 'INVALID_TOKEN',
        error: 'Invalid token.',
        id: 1,
      });
      expect(await ask(c, { op: 'subscribe', channels: ['orders'], id: 2 })).toMatchObject({
        code: 'INVALID_TOKEN',
        id: 2,
      });
      expect(await ask(c, { op: 'auth', id: 3 })).toEqual({
        type: 'error',
        code: 'INVALID_TOKEN',
        error: 'Missing bearer token.',
        id: 3,
      });
      // A socket logged in as bob cannot become alice's.
      const bobs = await open(`?token=${bob.token}`);
      expect(await ask(bobs, { op: 'auth', token: alice.token, id: 4 })).toEqual({
        type: 'error',
        code: 'INVALID_REQUEST',
        error: 'Already authenticated as another user: reconnect.',
        id: 4,
      });
    });

    it('orders, positions, balances for the authenticated user only (auth by op, and by ?token= at connect)', async () => {
      const a = await open();
      expect(await ask(a, { op: 'auth', token: alice.token, id: 1 })).toEqual({
        type: 'authenticated',
        user: alice.address,
        expires_at: expect.any(Number),
        id: 1,
      });
      const channels = ['orders', 'positions', 'balances', 'algoOrders'];
      expect(await ask(a, { op: 'subscribe', channels, id: 2 })).toEqual({
        type: 'subscribed',
        channels,
        id: 2,
      });
      const b = await open(`?token=${bob.token}`);
      expect(await ask(b, { op: 'subscribe', channels: ['Orders'], id: 1 })).toMatchObject({
        type: 'subscribed',
      });

      const placed = await json(
        `${ex.url}/api/v1/orders`,
        'POST',
        { symbol: 'BTC-USD', side: 'buy', type: 'limit', quantity: '0.1', price: '49000' },
        alice.token,
      );
      expect(placed.status).toBe(200);
      const o = await a.next((m) => m.channel === 'orders');
      expect(o).toEqual({ type: 'update', channel: 'orders', data: placed.body });
      expect(o.data).toMatchObject({
        symbol: BTC,
        side: 'buy',
        type: 'limit',
        status: 'new',
        price: '49000.0',
      });

      expect((await order(maker, { side: 'SELL', type: 'MARKET', quantity: '0.1' })).status).toBe(200);
      const filled = await a.next((m) => m.channel === 'orders' && m.data.status === 'filled');
      expect(filled.data).toMatchObject({
        id: placed.body.id,
        filled_quantity: '0.100',
        average_price: '49000',
      });
      expect((await a.next((m) => m.channel === 'positions')).data).toEqual({
        symbol: BTC,
        side: 'long',
        size: '0.100',
        entry_price: '49000',
        leverage: 20,
        time: expect.any(Number),
      });
      // Placed: 4900 / 20 x 1.005 held for the order; filled: the maker fee paid, nothing held.
      expect((await a.next((m) => m.channel === 'balances')).data).toEqual({
        asset: 'USDT',
        wallet_balance: '10000.00000000',
        order_margin: '246.22500000',
        time: expect.any(Number),
      });
      expect((await a.next((m) => m.channel === 'balances')).data).toEqual({
        asset: 'USDT',
        wallet_balance: '9999.02000000',
        order_margin: '0.00000000',
        time: expect.any(Number),
      });

      const stop = await json(
        `${ex.url}/api/v1/orders`,
        'POST',
        {
          symbol: BTC,
          side: 'sell',
          type: 'stop_market',
          quantity: '0.1',
          trigger_price: '40000',
          reduce_only: true,
        },
        alice.token,
      );
      expect(stop.status).toBe(200);
      const algo = await a.next((m) => m.channel === 'algoOrders');
      expect(algo.data).toEqual(stop.body);
      expect(algo.data).toMatchObject({ type: 'stop_market', status: 'new', trigger_price: '40000.0' });

      // Bob's socket saw none of it.
      await ask(b, { op: 'ping', id: 2 });
      expect(b.received).toEqual([]);
    });
  });

  it('orderbook: a snapshot, then diffs whose sequence numbers chain; the local book ends equal to REST depth', async () => {
    const c = await open();
    const place = (side: 'BUY' | 'SELL', price: string, quantity: string) =>
      order(maker, { side, type: 'LIMIT', timeInForce: 'GTC', quantity, price });
    await place('BUY', '49900.0', '0.010');
    const book = { bids: new Map<string, string>(), asks: new Map<string, string>() };
    let seq: number | undefined;
    const gaps: string[] = [];
    const frames: string[] = [];
    c.ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as Frame;
      if (m.channel !== 'orderbook:btc-usd') return;
      frames.push(m.type);
      const d = m.data;
      if (m.type === 'snapshot') {
        for (const [p, q] of d.bids) book.bids.set(p, q);
        for (const [p, q] of d.asks) book.asks.set(p, q);
        seq = d.seq;
        return;
      }
      if (seq === undefined) return void gaps.push('update before the snapshot');
      if (d.prev_seq > seq) gaps.push(`gap: prev_seq ${d.prev_seq} after ${seq}`);
      for (const [side, levels] of [
        [book.bids, d.bids],
        [book.asks, d.asks],
      ] as const)
        for (const [p, q] of levels as [string, string][])
          if (Number(q) === 0) side.delete(p);
          else side.set(p, q);
      seq = d.seq;
    });
    expect(await ask(c, { op: 'subscribe', channels: ['orderbook:btc-usd'], id: 1 })).toEqual({
      type: 'subscribed',
      channels: ['orderbook:btc-usd'],
      id: 1,
    });
    for (let i = 0; i < 12; i++) {
      await place('BUY', (49800 + i * 5).toFixed(1), '0.005');
      await place('SELL', (50100 - i * 5).toFixed(1), '0.004');
    }
    // A crossing order: fills change levels too.
    await order(taker, {
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      quantity: '0.010',
      price: '50060.0',
    });
    const rest = await eventually(
      async () => (await http(`${ex.url}/fapi/v1/depth?symbol=${BTC}&limit=1000`)).body,
      (r) => r.lastUpdateId === seq,
    );
    expect(frames[0]).toBe('snapshot');
    expect(frames.filter((f) => f === 'snapshot')).toHaveLength(1);
    expect(gaps).toEqual([]);
    expect(seq).toBe(rest.lastUpdateId);
    const sorted = (m: Map<string, string>, dir: 1 | -1) =>
      [...m.entries()].sort(([a], [b]) => dir * (Number(a) - Number(b)));
    expect(sorted(book.bids, -1)).toEqual(rest.bids);
    expect(sorted(book.asks, 1)).toEqual(rest.asks);
  });

  it("the Binance paths' connection policy: per-IP count shared, request rate, slow clients closed", async () => {
    const server = ex.app.get(StreamServer);
    try {
      // Every socket of this spec comes from 127.0.0.1: room for exactly one more.
      server.limits.maxConnectionsPerIp = ex.app.get(StreamHub).connections.size + 1;
      const binance = await clients.open('/ws');
      await expect(StreamClient.open(ex.url, '/api/v1/ws')).rejects.toMatchObject({ status: 429 });
      await binance.close();
      Object.assign(server.limits, DEFAULT_STREAM_LIMITS);

      server.limits.requestsPerSecond = 3;
      const chatty = await open();
      for (let i = 0; i < 10; i++) chatty.send({ op: 'ping', id: i });
      expect(await chatty.whenClosed()).toEqual({ code: CLOSE.policy, reason: 'too many requests' });
      Object.assign(server.limits, DEFAULT_STREAM_LIMITS);

      server.limits.maxBufferedBytes = 1;
      const slow = await open();
      server.limits.maxBufferedBytes = DEFAULT_STREAM_LIMITS.maxBufferedBytes;
      slow.send({ op: 'subscribe', channels: ['ticker:BTCUSDT'] });
      expect(await slow.whenClosed()).toEqual({
        code: CLOSE.slowClient,
        reason: 'slow client: send buffer full',
      });
    } finally {
      Object.assign(server.limits, DEFAULT_STREAM_LIMITS);
    }
  });

  it('a login that expires: an INVALID_TOKEN error frame, then close 4001; public-only sockets stay', async () => {
    const authed = await open(`?token=${alice.token}`);
    const anonymous = await open();
    const { exp } = JSON.parse(Buffer.from(alice.token.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
    };
    await ex.app.get(StreamServer).checkListenKeys(exp * 1000 - 1);
    expect(await ask(authed, { op: 'ping', id: 1 })).toMatchObject({ type: 'pong' });
    await ex.app.get(StreamServer).checkListenKeys(exp * 1000);
    expect(await authed.next((m) => m.type === 'error')).toEqual({
      type: 'error',
      code: 'INVALID_TOKEN',
      error: 'Token expired.',
    });
    expect(await authed.whenClosed()).toEqual({ code: 4001, reason: 'token expired' });
    expect(await ask(anonymous, { op: 'ping', id: 2 })).toMatchObject({ type: 'pong' });
  });

  it('every frame the sockets received is a message of the AsyncAPI document (docs/asyncapi/websocket.json)', () => {
    expect(conformance.nonconforming).toEqual([]);
  });
});
