import { Bus } from '@perp/bus';
import { TOPICS } from '@perp/contracts';
import { CombinedFrame, MARKET_EVENTS, StreamError, StreamResult } from '@perp/gateway';
import { http, signed } from '@perp/testing';
import type { InProcessExchange } from '../testing/in-process-exchange';
import type { Trader } from '../trading/trading.harness';
import { FrameConformance } from './frame-conformance.harness';
import { type Frame, StreamClient, StreamClients, UpgradeRefused } from './stream-client.harness';
import { tradingExchange } from './streams.harness';

jest.setTimeout(60_000);

// Binance USDⓈ-M stream framing and market streams on the embedded exchange's HTTP port.
describe('market streams (Binance framing)', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;
  const clients = new StreamClients(() => ex.url);
  // Request answers too: {result, id} and error objects are messages of the document.
  const conformance = new FrameConformance([...MARKET_EVENTS, CombinedFrame, StreamResult, StreamError]);
  const open = async (path: string) => conformance.watch(await clients.open(path));
  const refused = (path: string) =>
    StreamClient.open(ex.url, path).then(
      () => undefined,
      (e: unknown) => (e instanceof UpgradeRefused ? { status: e.status, body: JSON.parse(e.body) } : e),
    );
  const order = (t: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method: 'POST', params: { symbol: 'BTCUSDT', ...params } });

  beforeAll(async () => {
    let traders: Trader[];
    ({ ex, traders } = await tradingExchange(2, '100000'));
    [a, b] = traders as [Trader, Trader];
  });

  afterAll(async () => {
    await clients.closeAll();
    await ex?.close();
  });

  it('/ws: SUBSCRIBE, LIST_SUBSCRIPTIONS, UNSUBSCRIBE answer {result, id}; names come back as sent', async () => {
    const c = await open('/ws');
    expect(
      await c.request({ method: 'SUBSCRIBE', params: ['btcusdt@aggTrade', 'BTC-USD@depth@100ms'], id: 1 }),
    ).toEqual({
      result: null,
      id: 1,
    });
    expect(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 2 })).toEqual({
      result: ['btcusdt@aggTrade', 'BTC-USD@depth@100ms'],
      id: 2,
    });
    expect(await c.request({ method: 'UNSUBSCRIBE', params: ['btcusdt@aggTrade'], id: 3 })).toEqual({
      result: null,
      id: 3,
    });
    expect(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 4 })).toEqual({
      result: ['BTC-USD@depth@100ms'],
      id: 4,
    });
    expect(await c.request({ method: 'GET_PROPERTY', params: ['combined'], id: 5 })).toEqual({
      result: false,
      id: 5,
    });
    expect(await c.request({ method: 'SET_PROPERTY', params: ['combined', true], id: 6 })).toEqual({
      result: null,
      id: 6,
    });
    expect(await c.request({ method: 'GET_PROPERTY', params: ['combined'], id: 7 })).toEqual({
      result: true,
      id: 7,
    });
  });

  it('bad requests get error objects and change nothing', async () => {
    const c = await open('/ws');
    c.send('{nope');
    expect(await c.next((m) => 'error' in m)).toEqual({
      error: { code: 3, msg: expect.stringContaining('Invalid JSON') },
      id: null,
    });
    expect(await c.request({ method: 'PING', id: 1 })).toEqual({
      error: { code: 2, msg: expect.stringContaining('unknown variant `PING`') },
      id: 1,
    });
    expect(
      await c.request({ method: 'SUBSCRIBE', params: ['btcusdt@aggTrade', 'btcusdt@nothing'], id: 2 }),
    ).toEqual({
      error: { code: 2, msg: 'Invalid request: invalid stream btcusdt@nothing' },
      id: 2,
    });
    expect(await c.request({ method: 'SUBSCRIBE', params: ['dogeusdt@aggTrade'], id: 3 })).toMatchObject({
      error: { code: 2 },
      id: 3,
    });
    expect(await c.request({ method: 'SUBSCRIBE', params: [1], id: 4 })).toEqual({
      error: { code: 1, msg: 'Invalid value type: expected string' },
      id: 4,
    });
    expect(await c.request({ method: 'SET_PROPERTY', params: ['colour', true], id: 5 })).toEqual({
      error: { code: 0, msg: 'Unknown property' },
      id: 5,
    });
    expect(await c.request({ method: 'SET_PROPERTY', params: ['combined', 'yes'], id: 6 })).toEqual({
      error: { code: 1, msg: 'Invalid value type: expected Boolean' },
      id: 6,
    });
    c.send({ method: 'LIST_SUBSCRIPTIONS', id: -1 });
    expect(await c.next((m) => 'error' in m && m.id === null)).toEqual({
      error: { code: 2, msg: 'Invalid request: request ID must be an unsigned integer' },
      id: null,
    });
    expect(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 7 })).toEqual({ result: [], id: 7 });
  });

  it('paths: unknown 404, a stream the split path does not serve 400, an unknown symbol 400', async () => {
    expect(await refused('/nope')).toMatchObject({ status: 404 });
    expect(await refused('/public/ws/btcusdt@aggTrade')).toEqual({
      status: 400,
      body: { code: 2, msg: 'Invalid request: invalid stream btcusdt@aggTrade' },
    });
    expect(await refused('/market/stream?streams=btcusdt@depth')).toMatchObject({ status: 400 });
    expect(await refused('/ws/dogeusdt@trade')).toMatchObject({ status: 400 });
    expect(await refused(`/private/ws?listenKey=${'ab'.repeat(32)}`)).toEqual({
      status: 400,
      body: { code: -1125, msg: 'This listenKey does not exist.' },
    });
    const pub = await open('/public/ws');
    expect(await pub.request({ method: 'SUBSCRIBE', params: ['btcusdt@kline_1m'], id: 1 })).toMatchObject({
      error: { code: 2 },
    });
    // The private path serves user data only: without a key it opens (a SUBSCRIBE names one), a
    // market stream is refused there.
    expect(await refused('/private/stream?streams=btcusdt@aggTrade')).toMatchObject({ status: 400 });
    const priv = await open('/private/stream?streams=');
    expect(await priv.request({ method: 'SUBSCRIBE', params: ['btcusdt@aggTrade'], id: 2 })).toMatchObject({
      error: { code: 2 },
    });
    expect(await priv.request({ method: 'SUBSCRIBE', params: ['ab'.repeat(32)], id: 3 })).toEqual({
      error: { code: 2, msg: 'Invalid request: invalid listenKey' },
      id: 3,
    });
    expect(await priv.request({ method: 'LIST_SUBSCRIPTIONS', id: 4 })).toEqual({ result: [], id: 4 });
  });

  it('trades, aggregate trades, book tickers and diff depth arrive as Binance shapes them', async () => {
    const raw = await open('/ws/btcusdt@trade/btcusdt@aggTrade');
    const combined = await open('/stream?streams=btcusdt@bookTicker/btcusdt@depth@100ms/!bookTicker');
    const pub = await open('/public/stream?streams=btcusdt@depth5@100ms');
    const sell = await order(a, {
      side: 'SELL',
      type: 'LIMIT',
      timeInForce: 'GTC',
      quantity: '0.5',
      price: '50000',
    });
    expect(sell.status).toBe(200);
    const top = await combined.next((m) => m.stream === 'btcusdt@bookTicker');
    expect(top).toEqual({
      stream: 'btcusdt@bookTicker',
      data: {
        e: 'bookTicker',
        u: expect.any(Number),
        E: expect.any(Number),
        T: expect.any(Number),
        s: 'BTCUSDT',
        b: '0.0',
        B: '0.000',
        a: '50000.0',
        A: '0.500',
      },
    });
    expect(await combined.next((m) => m.stream === '!bookTicker')).toEqual({
      stream: '!bookTicker',
      data: top.data,
    });
    const diff = await combined.next((m) => m.stream === 'btcusdt@depth@100ms');
    expect(diff.data).toEqual({
      e: 'depthUpdate',
      E: expect.any(Number),
      T: expect.any(Number),
      s: 'BTCUSDT',
      U: expect.any(Number),
      u: top.data.u,
      pu: expect.any(Number),
      b: [],
      a: [['50000.0', '0.500']],
    });
    const partial = await pub.next((m) => m.stream === 'btcusdt@depth5@100ms' && m.data.a.length > 0);
    expect(partial.data).toMatchObject({
      e: 'depthUpdate',
      s: 'BTCUSDT',
      u: diff.data.u,
      b: [],
      a: [['50000.0', '0.500']],
    });

    // Two fills of one taker order at one price: two trades, one aggregate trade.
    expect(
      (await order(a, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.25', price: '50000' }))
        .status,
    ).toBe(200);
    const buy = await order(b, { side: 'BUY', type: 'MARKET', quantity: '0.6' });
    expect(buy.status).toBe(200);
    const t1 = await raw.next((m) => m.e === 'trade');
    const t2 = await raw.next((m) => m.e === 'trade');
    expect(t1).toEqual({
      e: 'trade',
      E: expect.any(Number),
      T: expect.any(Number),
      s: 'BTCUSDT',
      t: expect.any(Number),
      p: '50000.0',
      q: '0.500',
      X: 'MARKET',
      m: false,
    });
    expect(t2).toMatchObject({ q: '0.100', t: expect.any(Number) });
    const agg = await raw.next((m) => m.e === 'aggTrade');
    expect(agg).toEqual({
      e: 'aggTrade',
      E: expect.any(Number),
      s: 'BTCUSDT',
      a: t1.t,
      p: '50000.0',
      q: '0.600',
      f: t1.t,
      l: t2.t,
      T: t1.T,
      m: false,
    });
    // The same aggregate REST serves once the projection has it.
    let rest: any;
    for (let i = 0; i < 200 && !rest?.length; i++) {
      rest = (await http(`${ex.url}/fapi/v1/aggTrades?symbol=BTCUSDT`)).body;
      if (!rest?.length) await new Promise((r) => setTimeout(r, 25));
    }
    expect(rest).toEqual([{ a: agg.a, p: agg.p, q: agg.q, f: agg.f, l: agg.l, T: agg.T, m: agg.m }]);
  });

  it('tickers, mini tickers and klines show what REST shows', async () => {
    const c = await open(
      '/market/stream?streams=btcusdt@ticker/!miniTicker@arr/btcusdt@kline_1m/btcusdt_perpetual@continuousKline_1m',
    );
    // Market data may still be projecting the trades of the test before (the streams above come
    // straight from the engine's events): take ticker frames until one agrees with the REST read
    // that follows it (a changed ticker is pushed within a second).
    let ticker: Frame;
    let rest: Record<string, unknown>;
    for (let frames = 0; ; frames++) {
      ticker = await c.next((m) => m.stream === 'btcusdt@ticker' && m.data.n > 0);
      rest = (await http(`${ex.url}/fapi/v1/ticker/24hr?symbol=BTCUSDT`)).body;
      if (ticker.data.n === rest.count || frames === 10) break;
    }
    expect(ticker.data).toMatchObject({
      e: '24hrTicker',
      s: 'BTCUSDT',
      c: rest.lastPrice,
      o: rest.openPrice,
      h: rest.highPrice,
      l: rest.lowPrice,
      v: rest.volume,
      q: rest.quoteVolume,
      n: rest.count,
      p: rest.priceChange,
      P: rest.priceChangePercent,
    });
    // The arrays carry changed tickers only: a new trade brings one.
    expect(
      (await order(a, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.1', price: '50100' }))
        .status,
    ).toBe(200);
    // 0.15 left at 50000 from the test before, then 0.1 at 50100.
    expect((await order(b, { side: 'BUY', type: 'MARKET', quantity: '0.25' })).status).toBe(200);
    const mini = await c.next((m) => m.stream === '!miniTicker@arr' && m.data[0].c === '50100.0');
    expect(mini.data).toEqual([
      {
        e: '24hrMiniTicker',
        E: expect.any(Number),
        s: 'BTCUSDT',
        c: '50100.0',
        o: '50000.0',
        h: '50100.0',
        l: '50000.0',
        v: '0.850',
        q: expect.any(String),
      },
    ]);
    const kline = await c.next((m) => m.stream === 'btcusdt@kline_1m' && m.data.k.c === '50100.0');
    // The frame's own minute: a read with limit=1 alone gives the next minute's (empty) candle once
    // the minute has turned since the trade.
    const [row] = (
      await http(`${ex.url}/fapi/v1/klines?symbol=BTCUSDT&interval=1m&startTime=${kline.data.k.t}&limit=1`)
    ).body;
    expect(kline.data).toEqual({
      e: 'kline',
      E: expect.any(Number),
      s: 'BTCUSDT',
      k: {
        t: row[0],
        T: row[6],
        s: 'BTCUSDT',
        i: '1m',
        f: -1,
        L: -1,
        o: row[1],
        c: row[4],
        h: row[2],
        l: row[3],
        v: row[5],
        n: row[8],
        x: false,
        q: row[7],
        V: row[9],
        Q: row[10],
        B: '0',
      },
    });
    const cont = await c.next((m) => m.stream === 'btcusdt_perpetual@continuousKline_1m');
    expect(cont.data).toMatchObject({
      e: 'continuous_kline',
      ps: 'BTCUSDT',
      ct: 'PERPETUAL',
      k: { i: '1m' },
    });
  });

  it('mark prices from the prices topic: @markPrice@1s and !markPrice@arr', async () => {
    const c = await open('/market/stream?streams=btcusdt@markPrice@1s/!markPrice@arr');
    await ex.app.get(Bus).publish(TOPICS.prices.name, 'BTCUSDT', {
      id: 'mark-test-1',
      v: 1,
      time: Date.now(),
      type: 'price.mark',
      symbol: 'BTCUSDT',
      markPrice: '50010.5',
      indexPrice: '50000',
      lastPrice: '50100',
      premiumIndex: '0.0002',
      fundingRate: '0.0001',
      interestRate: '0.0001',
      nextFundingTime: 1_800_000_000_000,
    });
    const row = {
      e: 'markPriceUpdate',
      E: expect.any(Number),
      s: 'BTCUSDT',
      p: '50010.50000000',
      i: '50000.00000000',
      P: '50010.50000000',
      r: '0.00010000',
      T: 1_800_000_000_000,
    };
    expect(
      (await c.next((m) => m.stream === 'btcusdt@markPrice@1s' && m.data.p === '50010.50000000')).data,
    ).toEqual(row);
    expect(
      (
        await c.next(
          (m) => m.stream === '!markPrice@arr' && m.data.some((r: Frame) => r.p === '50010.50000000'),
        )
      ).data,
    ).toEqual([row]);
  });

  // Last: its clock tick moves the log's time a day ahead for the rest of this exchange.
  it("a kline is sent once more with x: true when the log's time (a keeper clock tick) passes its interval", async () => {
    const c = await open('/ws/btcusdt@kline_1d');
    const current = (await c.next((m) => m.e === 'kline')).k as Frame;
    expect(current.x).toBe(false);
    // The wall clock is still inside the day: only the log's time can end it.
    await ex.app.get(Bus).publish(TOPICS.clock.name, 'clock', {
      id: 'kline-close-test',
      v: 1,
      time: current.T + 1,
      type: 'clock.tick',
    });
    const closed = await c.next((m) => m.e === 'kline' && m.k.x === true);
    expect(Date.now()).toBeLessThan(current.T);
    const [row] = (
      await http(`${ex.url}/fapi/v1/klines?symbol=BTCUSDT&interval=1d&startTime=${current.t}&limit=1`)
    ).body;
    expect(closed.k).toEqual({
      ...current,
      t: row[0],
      T: row[6],
      o: row[1],
      h: row[2],
      l: row[3],
      c: row[4],
      v: row[5],
      n: row[8],
      x: true,
      q: row[7],
      V: row[9],
      Q: row[10],
    });
    expect(closed.k.n).toBeGreaterThan(0);
    // Then the next day's candle opens (no trade yet: at the last close).
    const next = await c.next((m) => m.e === 'kline' && m.k.t === current.T + 1);
    expect(next.k).toMatchObject({ x: false, n: 0, o: closed.k.c, c: closed.k.c, v: '0.000' });
    expect(c.received.filter((m: any) => m.k?.t === current.t)).toEqual([]);
  });

  it('every frame the sockets received is a message of the AsyncAPI document (docs/asyncapi/websocket.json)', () => {
    expect(conformance.nonconforming).toEqual([]);
  });
});
