import {
  DerivativesTradingUsdsFutures,
  DerivativesTradingUsdsFuturesWebsocketStreams as Streams,
} from '@binance/derivatives-trading-usds-futures';
import { StreamHub, StreamServer } from '@perp/gateway';
import { WebsocketClient } from 'binance';
import { http, signed } from '@perp/testing';
import type { InProcessExchange } from '../testing/in-process-exchange';
import { deposit, eventually, type Trader } from '../trading/trading.harness';
import { StreamClients } from './stream-client.harness';
import { binanceUsdmPro, tradingExchange } from './streams.harness';

jest.setTimeout(60_000);

const BTC = 'BTCUSDT';
const CCXT_BTC = 'BTC/USDT:USDT';

// The user data stream by listen key: Binance's events, its expiry, and ccxt pro's private watchers.
describe('user data streams', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;
  const clients = new StreamClients(() => ex.url);
  const open = (path: string) => clients.open(path);
  const listenKey = async (t: Trader, method: 'POST' | 'PUT' | 'DELETE' = 'POST') =>
    http(`${ex.url}/fapi/v1/listenKey`, { method, headers: { 'x-mbx-apikey': t.key.api_key } });
  const order = (t: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method: 'POST', params: { symbol: BTC, ...params } });
  /**
   * Closes what the tests before left open, until the hub has no user stream of a and no subscriber
   * of `keys`: a client opened after it is the one `crossOnceSubscribed` then sees subscribed.
   */
  const nothingOpen = async (keys: string[] = []) => {
    await clients.closeAll();
    const hub = ex.app.get(StreamHub);
    const quiet = () => !hub.hasUser(a.address) && !keys.some((k) => hub.has(k));
    expect(await eventually(async () => quiet(), Boolean)).toBe(true);
  };
  /**
   * Once `keys` (hub stream keys) and a's user stream have subscribers: a rests a SELL of 0.01 at
   * `price`, b buys 0.01 up to it (IOC), taking the best ask (that one, or one a left earlier).
   */
  const crossOnceSubscribed = async (keys: string[], price: string) => {
    const hub = ex.app.get(StreamHub);
    const subscribed = () => keys.every((k) => hub.has(k)) && hub.hasUser(a.address);
    expect(await eventually(async () => subscribed(), Boolean)).toBe(true);
    const limit = { type: 'LIMIT', quantity: '0.01', price };
    const sell = await order(a, { side: 'SELL', timeInForce: 'GTC', ...limit });
    expect(sell.status).toBe(200);
    const buy = await order(b, { side: 'BUY', timeInForce: 'IOC', ...limit });
    expect(buy.body).toMatchObject({ status: 'FILLED', executedQty: '0.010' });
    return { sell, buy };
  };

  beforeAll(async () => {
    let traders: Trader[];
    ({ ex, traders } = await tradingExchange(2, '10000'));
    [a, b] = traders as [Trader, Trader];
  });

  afterAll(async () => {
    await clients.closeAll();
    await ex?.close();
  });

  it('ORDER_TRADE_UPDATE and ACCOUNT_UPDATE (ORDER, DEPOSIT) on /ws/<listenKey> and /private/ws?listenKey=', async () => {
    const ka = (await listenKey(a)).body.listenKey as string;
    const kb = (await listenKey(b)).body.listenKey as string;
    const sa = await open(`/ws/${ka}`);
    const sb = await open(`/private/ws?listenKey=${kb}`);
    const sell = await order(a, {
      side: 'SELL',
      type: 'LIMIT',
      timeInForce: 'GTC',
      quantity: '0.1',
      price: '50000',
    });
    expect(sell.status).toBe(200);
    const placed = await sa.next((m) => m.e === 'ORDER_TRADE_UPDATE');
    expect(placed).toEqual({
      e: 'ORDER_TRADE_UPDATE',
      E: expect.any(Number),
      T: expect.any(Number),
      o: expect.objectContaining({
        s: BTC,
        c: sell.body.clientOrderId,
        S: 'SELL',
        o: 'LIMIT',
        f: 'GTC',
        q: '0.100',
        p: '50000.0',
        x: 'NEW',
        X: 'NEW',
        i: sell.body.orderId,
        l: '0',
        z: '0.000',
        ps: 'BOTH',
      }),
    });
    // Placing an order only freezes margin: no ACCOUNT_UPDATE.
    expect((await order(b, { side: 'BUY', type: 'MARKET', quantity: '0.1' })).status).toBe(200);
    const maker = await sa.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.x === 'TRADE');
    expect(maker.o).toMatchObject({
      i: sell.body.orderId,
      X: 'FILLED',
      l: '0.100',
      L: '50000.0',
      z: '0.100',
      m: true,
      N: 'USDT',
      n: '1.00000000',
      rp: '0.00000000',
      t: expect.any(String),
    });
    const taker = await sb.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.x === 'TRADE');
    expect(taker.o).toMatchObject({
      S: 'BUY',
      o: 'MARKET',
      X: 'FILLED',
      l: '0.100',
      L: '50000.0',
      m: false,
      n: '2.50000000',
      t: maker.o.t,
    });
    const account = await sa.next((m) => m.e === 'ACCOUNT_UPDATE');
    expect(account).toEqual({
      e: 'ACCOUNT_UPDATE',
      E: expect.any(Number),
      T: expect.any(Number),
      a: {
        m: 'ORDER',
        B: [{ a: 'USDT', wb: '9999.00000000', cw: '9999.00000000', bc: '0.00000000' }],
        P: [
          {
            s: BTC,
            pa: '-0.1',
            ep: '50000',
            bep: '50000',
            cr: '0',
            up: '0',
            mt: 'cross',
            iw: '0',
            ps: 'BOTH',
          },
        ],
      },
    });
    // Nothing of a's reached b's stream, and the events came in risk's order.
    expect(sb.received.filter((m: any) => m.o?.i === sell.body.orderId)).toEqual([]);
    expect(sa.received.filter((m: any) => m.e === 'ORDER_TRADE_UPDATE')).toEqual([]);

    await deposit(ex.url, ex.adminToken, a.address, '500');
    expect(await sa.next((m) => m.e === 'ACCOUNT_UPDATE')).toMatchObject({
      a: { m: 'DEPOSIT', B: [{ a: 'USDT', wb: '10499.00000000', bc: '500.00000000' }], P: [] },
    });
  });

  it('a listen key SUBSCRIBEd on /ws works too; LIST_SUBSCRIPTIONS shows it', async () => {
    const ka = (await listenKey(a)).body.listenKey as string;
    const c = await open('/ws');
    expect(await c.request({ method: 'SUBSCRIBE', params: [ka], id: 1 })).toEqual({ result: null, id: 1 });
    expect(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 2 })).toEqual({ result: [ka], id: 2 });
    expect(await c.request({ method: 'SUBSCRIBE', params: ['ef'.repeat(32)], id: 3 })).toEqual({
      error: { code: 2, msg: 'Invalid request: invalid listenKey' },
      id: 3,
    });
    await deposit(ex.url, ex.adminToken, a.address, '1');
    expect(await c.next((m) => m.e === 'ACCOUNT_UPDATE')).toMatchObject({ a: { m: 'DEPOSIT' } });
  });

  it('keepalive (PUT) keeps the stream; a closed or expired key ends it with listenKeyExpired', async () => {
    const kb = (await listenKey(b)).body.listenKey as string;
    const c = await open(`/private/ws?listenKey=${kb}`);
    expect((await listenKey(b, 'PUT')).body).toEqual({ listenKey: kb });
    const server = ex.app.get(StreamServer);
    await server.checkListenKeys();
    expect(c.closed).toBeUndefined();
    expect((await listenKey(b, 'DELETE')).status).toBe(200);
    await server.checkListenKeys(1234);
    expect(await c.next((m) => m.e === 'listenKeyExpired')).toEqual({
      e: 'listenKeyExpired',
      E: 1234,
      listenKey: kb,
    });
    expect(await c.whenClosed()).toEqual({ code: 4001, reason: 'listen key expired' });
  });

  it('a client reconnecting with its key gets the events it missed, in order, then live ones, none twice', async () => {
    // One client per key here: the key's place is the last event any of its connections was sent.
    await clients.closeAll();
    const ka = (await listenKey(a)).body.listenKey as string;
    const first = await open(`/ws/${ka}`);
    const rest = (price: string) =>
      order(a, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price });
    const seen = (await rest('51000')).body.orderId as string;
    expect(await first.next((m) => m.e === 'ORDER_TRADE_UPDATE')).toMatchObject({ o: { i: seen, x: 'NEW' } });
    await first.close();
    // Missed: a second order resting, then filled by b.
    const missed = (await rest('50500')).body.orderId as string;
    expect((await order(b, { side: 'BUY', type: 'MARKET', quantity: '0.01' })).status).toBe(200);
    await eventually(
      async () =>
        (await signed(ex.url, '/fapi/v1/order', a.key, { params: { symbol: BTC, orderId: missed } })).body,
      (o) => o.status === 'FILLED',
    );
    const again = await open(`/ws/${ka}`);
    const live = (await rest('52000')).body.orderId as string;
    await again.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.i === live);
    const shown = (again.received as Record<string, any>[]).map((m) =>
      m.e === 'ORDER_TRADE_UPDATE' ? `${m.o.i === missed ? 'missed' : m.o.i}:${m.o.x}` : `${m.e}:${m.a.m}`,
    );
    // `next` took the live order's event off the list.
    expect(shown).toEqual(['missed:NEW', 'missed:TRADE', 'ACCOUNT_UPDATE:ORDER']);
    expect(again.received).toHaveLength(3);
  });

  describe("Binance's official connector's stream client by URL", () => {
    let conn: Awaited<ReturnType<DerivativesTradingUsdsFutures['websocketStreams']['connect']>> | undefined;
    let open0 = 0;

    beforeAll(() => {
      // The connector logs each connection at info.
      jest.spyOn(console, 'info').mockImplementation(() => undefined);
      open0 = ex.app.get(StreamHub).connections.size;
    });

    afterAll(async () => {
      await conn?.disconnect();
      // Its disconnect resolves before its sockets close (about a second later): wait for the server
      // to see all three go, so that nothing of it outlives the file.
      const hub = ex.app.get(StreamHub);
      await eventually(
        async () => hub.connections.size,
        (n) => n <= open0,
      );
      await new Promise((r) => setImmediate(r));
      jest.restoreAllMocks();
    });

    it('opens /market, /public and /private combined streams, then gets aggTrade, bookTicker, diff depth, klines and user data it SUBSCRIBEs', async () => {
      const keys = ['BTCUSDT@aggTrade', 'BTCUSDT@bookTicker', 'BTCUSDT@depth@100ms', 'BTCUSDT@kline_1m'];
      await nothingOpen(keys);
      const client = new DerivativesTradingUsdsFutures({
        configurationWebsocketStreams: { wsURL: ex.url.replace(/^http/, 'ws') },
      });
      // Its three connections: /market/stream and /public/stream with no stream, /private/stream with no key.
      conn = await client.websocketStreams.connect();
      const got: Record<'agg' | 'book' | 'depth' | 'kline' | 'user', Record<string, unknown>[]> = {
        agg: [],
        book: [],
        depth: [],
        kline: [],
        user: [],
      };
      const ka = (await listenKey(a)).body.listenKey as string;
      conn.aggregateTradeStreams({ symbol: 'btcusdt' }).on('message', (m) => void got.agg.push({ ...m }));
      conn
        .individualSymbolBookTickerStreams({ symbol: 'btcusdt' })
        .on('message', (m) => void got.book.push({ ...m }));
      conn.userData(ka).on('message', (m) => void got.user.push({ ...m }));
      conn
        .diffBookDepthStreams({
          symbol: 'btcusdt',
          updateSpeed: Streams.DiffBookDepthStreamsUpdateSpeedEnum.UPDATE_SPEED_100ms,
        })
        .on('message', (m) => void got.depth.push({ ...m }));
      conn
        .klineCandlestickStreams({
          symbol: 'btcusdt',
          interval: Streams.KlineCandlestickStreamsIntervalEnum.INTERVAL_1m,
        })
        .on('message', (m) => void got.kline.push({ ...m }));
      const { buy } = await crossOnceSubscribed(keys, '60000');
      const price = buy.body.avgPrice as string;

      const filled = (u: Record<string, unknown>) =>
        u.e === 'ORDER_TRADE_UPDATE' && (u.o as { x: string }).x === 'TRADE';
      const traded = (k: Record<string, unknown>) => Number((k.k as { v: string }).v) > 0;
      await eventually(
        async () => got,
        (g) =>
          g.agg.length > 0 &&
          g.book.length > 0 &&
          g.depth.length > 0 &&
          g.kline.some(traded) &&
          g.user.some(filled),
      );
      // The connector hands over `data` of the {stream, data} frames, parsed.
      expect(got.agg.at(-1)).toMatchObject({ e: 'aggTrade', s: 'BTCUSDT', q: '0.010', m: false });
      expect(Number(got.agg.at(-1)!.p)).toBe(Number(price));
      expect(got.book.at(-1)).toMatchObject({ e: 'bookTicker', s: 'BTCUSDT' });
      expect(got.depth.at(-1)).toMatchObject({
        e: 'depthUpdate',
        s: 'BTCUSDT',
        U: expect.any(Number),
        u: expect.any(Number),
        pu: expect.any(Number),
      });
      expect(got.kline.find(traded)).toMatchObject({
        e: 'kline',
        s: 'BTCUSDT',
        k: { s: 'BTCUSDT', i: '1m' },
      });
      expect(got.user.find(filled)).toMatchObject({
        e: 'ORDER_TRADE_UPDATE',
        o: { s: 'BTCUSDT', S: 'SELL', x: 'TRADE', l: '0.010', m: true },
      });
      expect(
        got.user.filter((u) => u.e === 'ORDER_TRADE_UPDATE').map((u) => (u.o as { x: string }).x),
      ).toContain('NEW');
    });
  });

  describe("the `binance` package's WebsocketClient by URL", () => {
    let ws: WebsocketClient | undefined;

    afterAll(async () => {
      if (!ws) return;
      // binance 3.6.5 closes a user data stream's socket but leaves the listen key's 50-minute
      // keep-alive interval running (only its expiry path clears it), so Jest would never exit;
      // its stream manager's teardown (private in the typings) clears it. POST returns the live key.
      const key = (await listenKey(a)).body.listenKey as string;
      const client = ws as unknown as {
        getUserDataStreamManager(): { teardownUserDataListenKey(listenKey?: string): void };
      };
      client.getUserDataStreamManager().teardownUserDataListenKey(key);
      ws.closeAll(true);
    });

    it('subscribes aggTrade on /market/stream and bookTicker on /public/stream, and a user data stream it makes a key for', async () => {
      const keys = ['BTCUSDT@aggTrade', 'BTCUSDT@bookTicker'];
      await nothingOpen(keys);
      const silent = { trace: () => undefined, info: () => undefined, error: () => undefined };
      ws = new WebsocketClient(
        {
          api_key: a.key.api_key,
          api_secret: a.key.secret_key,
          wsUrl: ex.url.replace(/^http/, 'ws'),
          restOptions: { baseUrl: ex.url },
        },
        silent,
      );
      const got: Record<string, unknown>[] = [];
      ws.on('message', (m) => void got.push(m as unknown as Record<string, unknown>));
      await ws.subscribe(['btcusdt@aggTrade'], 'usdmMarket');
      await ws.subscribe(['btcusdt@bookTicker'], 'usdmPublic');
      // POST /fapi/v1/listenKey with its REST client, then /private/stream?listenKey=.
      await ws.subscribeUsdFuturesUserDataStream();
      const { sell, buy } = await crossOnceSubscribed(keys, '61000');
      // It hands over each combined frame's data, with the stream's name added (`streamName`).
      const of = (stream: string) => got.filter((m) => m.streamName === stream);
      type Update = { o: { c: string; x: string; S: string; m: boolean; l: string; L: string } };
      const updates = () => got.filter((m) => m.e === 'ORDER_TRADE_UPDATE') as Update[];
      const done = () =>
        of('btcusdt@aggTrade').length > 0 &&
        of('btcusdt@bookTicker').length > 0 &&
        updates().some((u) => u.o.x === 'TRADE');
      expect(await eventually(async () => done(), Boolean)).toBe(true);
      // b's buy took the best ask, a's new sell or one a left resting earlier in this file.
      const price = Number(buy.body.avgPrice);
      expect(of('btcusdt@aggTrade').at(-1)).toMatchObject({
        e: 'aggTrade',
        s: 'BTCUSDT',
        q: '0.010',
        m: false,
      });
      expect(Number(of('btcusdt@aggTrade').at(-1)!.p)).toBe(price);
      expect(of('btcusdt@bookTicker').at(-1)).toMatchObject({ e: 'bookTicker', s: 'BTCUSDT' });
      expect(updates().find((u) => u.o.c === sell.body.clientOrderId)?.o.x).toBe('NEW');
      const fill = updates().find((u) => u.o.x === 'TRADE')!;
      expect(fill.o).toMatchObject({ S: 'SELL', m: true, l: '0.010' });
      expect(Number(fill.o.L)).toBe(price);
    });
  });

  describe('ccxt pro binanceusdm by URL', () => {
    let pa: Awaited<ReturnType<typeof binanceUsdmPro>>;
    let pb: Awaited<ReturnType<typeof binanceUsdmPro>>;

    beforeAll(async () => {
      await nothingOpen();
      [pa, pb] = [await binanceUsdmPro(ex.url, a), await binanceUsdmPro(ex.url, b)];
    });

    afterAll(async () => {
      await pa?.close();
      await pb?.close();
    });

    it('watchOrders, watchMyTrades, watchBalance, watchPositions see a fill', async () => {
      const orders = pa.watchOrders(CCXT_BTC);
      const trades = pa.watchMyTrades(CCXT_BTC);
      const balance = pa.watchBalance();
      const positions = pa.watchPositions([CCXT_BTC]);
      // ccxt's private socket is up (its listen key attached) before the orders: its watchers are
      // registered before it connects, so none misses the order's first event.
      const hub = ex.app.get(StreamHub);
      expect(await eventually(async () => hub.hasUser(a.address), Boolean)).toBe(true);
      const buy = await pa.createOrder(CCXT_BTC, 'limit', 'buy', 0.05, 49000);
      const [o] = await orders;
      expect(o).toMatchObject({
        id: buy.id,
        symbol: CCXT_BTC,
        side: 'buy',
        status: 'open',
        price: 49000,
        amount: 0.05,
      });
      await pb.createOrder(CCXT_BTC, 'market', 'sell', 0.05);
      const [t] = await trades;
      expect(t).toMatchObject({
        symbol: CCXT_BTC,
        order: buy.id,
        side: 'buy',
        price: 49000,
        amount: 0.05,
        takerOrMaker: 'maker',
      });
      const bal = await balance;
      expect(bal['USDT']).toMatchObject({ total: expect.any(Number) });
      const ps = await positions;
      expect(ps.find((p) => p.symbol === CCXT_BTC)).toBeDefined();
    });
  });
});
