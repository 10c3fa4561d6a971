import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, signed, startAppProcess } from '@perp/testing';
import { StreamClient } from './streams/stream-client.harness';
import {
  adminRequest,
  ccxtClient,
  deposit,
  eventually,
  newTrader,
  type Trader,
} from './trading/trading.harness';

/** An acknowledged change survives kill -9: the memory bus journal under DATA_DIR is replayed on start. */
describe('embedded exchange durability', () => {
  it('keeps an admin market change across kill -9 and restart on the same data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: 'durability-admin-token-123' };
    const statusOf = async (url: string, symbol: string) => {
      const info = (await (await fetch(`${url}/fapi/v1/exchangeInfo`)).json()) as any;
      return info.symbols.find((s: { symbol: string }) => s.symbol === symbol)?.status;
    };

    const first = await startAppProcess('exchange', env);
    const r = await fetch(`${first.url}/admin/v1/markets/ETHUSDT/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(200);
    expect(await statusOf(first.url, 'ETHUSDT')).toBe('HALT');
    await first.stop('SIGKILL');

    const second = await startAppProcess('exchange', env);
    try {
      expect(await statusOf(second.url, 'ETHUSDT')).toBe('HALT');
      expect(await statusOf(second.url, 'BTCUSDT')).toBe('TRADING');
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('journals in many small segments and comes back from kill -9 with every balance, order and market change', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = {
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'durability-admin-token-123',
      BUS_MEMORY_SEGMENT_BYTES: '20000',
    };
    const admin = (url: string, path: string, body: unknown) =>
      fetch(`${url}/admin/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const seen = async (url: string, t: Trader) => {
      const c = ccxtClient(url, t);
      const [balance, open] = await Promise.all([c.fetchBalance(), c.fetchOpenOrders('BTC/USDT:USDT')]);
      return { usdt: balance['USDT'], open: open.map((o) => [o.id, o.side, o.price, o.amount]) };
    };
    const BTC = 'BTC/USDT:USDT';

    const first = await startAppProcess('exchange', env);
    let a: Trader;
    let b: Trader;
    let before: Awaited<ReturnType<typeof seen>>[];
    try {
      expect((await admin(first.url, '/markets/ETHUSDT/pause', {})).status).toBe(200);
      expect((await admin(first.url, '/prices/BTCUSDT', { indexPrice: '50000' })).status).toBe(200);
      a = await newTrader(first.url);
      b = await newTrader(first.url);
      await deposit(first.url, env.ADMIN_TOKEN, a.address, '10000');
      await deposit(first.url, env.ADMIN_TOKEN, b.address, '10000');
      const ca = ccxtClient(first.url, a);
      const cb = ccxtClient(first.url, b);
      for (let i = 0; i < 10; i++) {
        await ca.createOrder(BTC, 'limit', 'sell', 0.01, 50000 + i * 10);
        await cb.createOrder(BTC, 'market', 'buy', 0.01);
      }
      await cb.createOrder(BTC, 'limit', 'buy', 0.02, 40000);
      before = [await seen(first.url, a), await seen(first.url, b)];
    } catch (e) {
      await first.stop();
      throw e;
    }
    await first.stop('SIGKILL');
    const segments = readdirSync(join(dataDir, 'bus')).filter((f) => f.startsWith('bus.journal'));
    expect(segments.length).toBeGreaterThan(5);

    const second = await startAppProcess('exchange', env);
    try {
      expect([await seen(second.url, a!), await seen(second.url, b!)]).toEqual(before!);
      const info = (await (await fetch(`${second.url}/fapi/v1/exchangeInfo`)).json()) as {
        symbols: { symbol: string; status: string }[];
      };
      expect(info.symbols.find((s) => s.symbol === 'ETHUSDT')?.status).toBe('HALT');
      // Offsets go on where they were: a new order is accepted and seen.
      const bid = await ccxtClient(second.url, a!).createOrder(BTC, 'limit', 'buy', 0.01, 39000);
      expect((await seen(second.url, a!)).open.map((o) => o[0])).toContain(bid.id);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('reads every account as it was after a restart, whether the account changed since the snapshot or not', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: 'durability-admin-token-123' };
    const seen = async (url: string, t: Trader) => {
      const c = ccxtClient(url, t);
      const [balance, open, algos] = await Promise.all([
        c.fetchBalance(),
        c.fetchOpenOrders('BTC/USDT:USDT'),
        signed(url, '/fapi/v1/openAlgoOrders', t.key),
      ]);
      return {
        usdt: balance['USDT'],
        open: open.map((o) => [o.id, o.side, o.price, o.amount]),
        algos: (algos.body as { algoId: number }[]).map((o) => o.algoId),
      };
    };

    const first = await startAppProcess('exchange', env);
    const prepare = async () => {
      const a = await newTrader(first.url);
      const b = await newTrader(first.url);
      await deposit(first.url, env.ADMIN_TOKEN, a.address, '1000');
      await deposit(first.url, env.ADMIN_TOKEN, b.address, '2500');
      const index = await fetch(`${first.url}/admin/v1/prices/BTCUSDT`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ indexPrice: '50000' }),
      });
      expect(index.status).toBe(200);
      await ccxtClient(first.url, b).createOrder('BTC/USDT:USDT', 'limit', 'buy', 0.01, 40000);
      const stop = await signed(first.url, '/fapi/v1/algoOrder', b.key, {
        method: 'POST',
        params: {
          symbol: 'BTCUSDT',
          side: 'BUY',
          type: 'STOP_MARKET',
          triggerPrice: '90000',
          quantity: '0.01',
        },
      });
      expect(stop.status).toBe(200);
      const aBefore = await seen(first.url, a);
      const bBefore = await seen(first.url, b);
      expect(aBefore.usdt).toEqual({ free: 1000, used: 0, total: 1000 });
      expect([bBefore.open.length, bBefore.algos]).toEqual([1, [stop.body.algoId]]);
      return { a, b, aBefore, bBefore };
    };
    const { a, b, aBefore, bBefore } = await prepare().catch(async (e: unknown) => {
      await first.stop();
      throw e;
    });
    await first.stop('SIGTERM'); // every partition snapshotted: the restart replays nothing

    const second = await startAppProcess('exchange', env);
    try {
      expect(await seen(second.url, a)).toEqual(aBefore);
      expect(await seen(second.url, b)).toEqual(bBefore);
      await deposit(second.url, env.ADMIN_TOKEN, a.address, '1');
    } finally {
      await second.stop('SIGKILL'); // a's deposit is after the snapshot: replayed; b is only restored
    }

    const third = await startAppProcess('exchange', env);
    try {
      expect((await seen(third.url, a)).usdt).toEqual({ free: 1001, used: 0, total: 1001 });
      expect(await seen(third.url, b)).toEqual(bBefore);
    } finally {
      await third.stop();
    }
  }, 90_000);

  it('keeps an order taken before its market was paused across kill -9: it rests again and fills once the market resumes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: 'durability-admin-token-123' };
    const admin = (url: string, path: string, body?: unknown) =>
      adminRequest(url, env.ADMIN_TOKEN, path, 'POST', body);
    const order = (url: string, t: Trader, params: Record<string, string>) =>
      signed(url, '/fapi/v1/order', t.key, { method: 'POST', params: { symbol: 'ETHUSDT', ...params } });
    const open = async (url: string, t: Trader) => {
      const [orders, algos] = await Promise.all([
        signed(url, '/fapi/v1/openOrders', t.key),
        signed(url, '/fapi/v1/openAlgoOrders', t.key),
      ]);
      return {
        orders: (orders.body as { orderId: string }[]).map((o) => o.orderId),
        algos: (algos.body as { algoId: number }[]).map((o) => o.algoId),
      };
    };

    const first = await startAppProcess('exchange', env);
    let a: Trader;
    let b: Trader;
    let before: Awaited<ReturnType<typeof open>>;
    try {
      [a, b] = [await newTrader(first.url), await newTrader(first.url)];
      for (const t of [a, b]) await deposit(first.url, env.ADMIN_TOKEN, t.address, '1000');
      expect((await admin(first.url, '/prices/ETHUSDT', { indexPrice: '3000' })).status).toBe(200);
      const bid = await order(first.url, a, {
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'GTC',
        price: '2900',
        quantity: '0.01',
      });
      expect(bid.status).toBe(200);
      const stop = await signed(first.url, '/fapi/v1/algoOrder', a.key, {
        method: 'POST',
        params: {
          symbol: 'ETHUSDT',
          side: 'BUY',
          type: 'STOP_MARKET',
          triggerPrice: '4000',
          quantity: '0.01',
        },
      });
      expect(stop.status).toBe(200);
      expect((await admin(first.url, '/markets/ETHUSDT/pause')).status).toBe(200);
      before = await open(first.url, a);
      expect(before).toEqual({ orders: [bid.body.orderId], algos: [stop.body.algoId] });
    } finally {
      // Before any snapshot holds the order: both stages replay it with the market halted now.
      await first.stop('SIGKILL');
    }

    const second = await startAppProcess('exchange', env);
    try {
      expect(await open(second.url, a)).toEqual(before);
      expect((await admin(second.url, '/markets/ETHUSDT/resume')).status).toBe(200);
      // Risk has the resume on its log before the operator's answer: an order right after it is taken.
      const sell = await order(second.url, b, { side: 'SELL', type: 'MARKET', quantity: '0.01' });
      expect(sell.status).toBe(200);
      expect(sell.body).toMatchObject({ status: 'FILLED', avgPrice: '2900' });
      const position = await signed(second.url, '/fapi/v2/positionRisk', a.key, {
        params: { symbol: 'ETHUSDT' },
      });
      expect(position.body).toMatchObject([{ positionAmt: '0.010', entryPrice: '2900' }]);
      const solvency = await eventually(
        () => adminRequest(second.url, env.ADMIN_TOKEN, '/solvency', 'GET'),
        (r) => r.body?.unsettled_symbols?.length === 0 && /^0(\.0+)?$/.test(r.body.difference),
      );
      expect(solvency.body).toMatchObject({ difference: expect.stringMatching(/^0(\.0+)?$/) });
      expect((await open(second.url, a)).algos).toEqual(before.algos);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('serves the same public market data after kill -9 and a restart: book, top, tickers, open interest, prices', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: 'durability-admin-token-123' };
    const get = async (url: string, path: string) => (await (await fetch(`${url}${path}`)).json()) as any;
    const market = async (url: string) => {
      const [depth, top, day, price, oi, nativeOi, premium] = await Promise.all([
        get(url, '/fapi/v1/depth?symbol=BTCUSDT&limit=1000'),
        get(url, '/fapi/v1/ticker/bookTicker?symbol=BTCUSDT'),
        get(url, '/fapi/v1/ticker/24hr?symbol=BTCUSDT'),
        get(url, '/fapi/v1/ticker/price?symbol=BTCUSDT'),
        get(url, '/fapi/v1/openInterest?symbol=BTCUSDT'),
        get(url, '/api/v1/open-interest/BTCUSDT'),
        get(url, '/fapi/v1/premiumIndex?symbol=BTCUSDT'),
      ]);
      // The 24 h window and the answers' times move with the clock.
      for (const v of [depth, top, day, price, oi, nativeOi, premium])
        for (const f of ['E', 'T', 'time']) delete v[f];
      delete day.openTime;
      delete day.closeTime;
      delete nativeOi.updated_at;
      return { depth, top, day, price, oi, nativeOi, premium };
    };

    const first = await startAppProcess('exchange', env);
    let before: Awaited<ReturnType<typeof market>>;
    let b: Trader;
    try {
      const a = await newTrader(first.url);
      b = await newTrader(first.url);
      await deposit(first.url, env.ADMIN_TOKEN, a.address, '5000');
      await deposit(first.url, env.ADMIN_TOKEN, b.address, '5000');
      const index = await fetch(`${first.url}/admin/v1/prices/BTCUSDT`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ indexPrice: '50000' }),
      });
      expect(index.status).toBe(200);
      const ca = ccxtClient(first.url, a);
      const cb = ccxtClient(first.url, b);
      await ca.createOrder('BTC/USDT:USDT', 'limit', 'buy', 0.01, 49000);
      await ca.createOrder('BTC/USDT:USDT', 'limit', 'buy', 0.02, 48500);
      await ca.createOrder('BTC/USDT:USDT', 'limit', 'sell', 0.01, 51000);
      await ca.createOrder('BTC/USDT:USDT', 'limit', 'sell', 0.03, 52000);
      await cb.createOrder('BTC/USDT:USDT', 'limit', 'sell', 0.005, 49000);
      await cb.createOrder('BTC/USDT:USDT', 'limit', 'buy', 0.004, 51000);
      // Market data is projected behind the order path: wait for the last trade and level.
      before = await eventually(
        () => market(first.url),
        (m) => m.day.count === 2 && m.depth.asks?.[0]?.[1] === '0.006' && m.oi.openInterest === '0.002',
      );
      expect(before.depth.bids).toEqual([
        ['49000.0', '0.005'],
        ['48500.0', '0.020'],
      ]);
      // The spec's open interest is long + short: a is long 0.001, b short 0.001.
      expect(before.premium.markPrice).toMatch(/^50\d{3}\./);
      expect([before.top.bidPrice, before.top.askQty, before.day.volume, before.price.price]).toEqual([
        '49000.0',
        '0.006',
        '0.009',
        '51000.0',
      ]);
    } finally {
      await first.stop('SIGKILL');
    }

    const second = await startAppProcess('exchange', env);
    try {
      // Read as soon as the process is ready: the memory hot store started empty.
      expect(await market(second.url)).toEqual(before);
      // The book goes on from there: the rest of the 49000 bid trades away.
      await ccxtClient(second.url, b).createOrder('BTC/USDT:USDT', 'limit', 'sell', 0.005, 49000);
      const after = await eventually(
        () => market(second.url),
        (m) => m.day.count === 3,
      );
      expect(after.depth.bids).toEqual([['48500.0', '0.020']]);
      expect(after.depth.lastUpdateId).toBeGreaterThan(before.depth.lastUpdateId);
      // a is now long 0.006 and b short 0.006: the positions went on from those before the restart.
      expect([after.top.bidPrice, after.price.price, after.oi.openInterest]).toEqual([
        '48500.0',
        '49000.0',
        '0.012',
      ]);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('keeps a listen key and its place across kill -9: the user stream resumes with what it missed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: 'durability-admin-token-123' };
    type Update = { e: string; o?: { c: string; X: string } };
    const orderUpdate = (clientOrderId: string) => (m: Update) =>
      m.e === 'ORDER_TRADE_UPDATE' && m.o?.c === clientOrderId;
    const place = (url: string, t: Trader, clientOrderId: string) =>
      signed(url, '/fapi/v1/order', t.key, {
        method: 'POST',
        params: {
          symbol: 'BTCUSDT',
          side: 'BUY',
          type: 'LIMIT',
          timeInForce: 'GTC',
          quantity: '0.01',
          price: '40000',
          newClientOrderId: clientOrderId,
        },
      });

    const first = await startAppProcess('exchange', env);
    let t: Trader;
    let listenKey: string;
    try {
      t = await newTrader(first.url);
      await deposit(first.url, env.ADMIN_TOKEN, t.address, '5000');
      const index = await fetch(`${first.url}/admin/v1/prices/BTCUSDT`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ indexPrice: '50000' }),
      });
      expect(index.status).toBe(200);
      const opened = await http(`${first.url}/fapi/v1/listenKey`, {
        method: 'POST',
        headers: { 'x-mbx-apikey': t.key.api_key },
      });
      listenKey = opened.body.listenKey as string;
      const stream = await StreamClient.open(first.url, `/ws/${listenKey}`);
      expect((await place(first.url, t, 'before-kill')).status).toBe(200);
      expect((await stream.next(orderUpdate('before-kill'))).o?.X).toBe('NEW');
      // The place the stream reached is saved with the key every second.
      await new Promise((r) => setTimeout(r, 1_500));
    } finally {
      await first.stop('SIGKILL');
    }

    const second = await startAppProcess('exchange', env);
    try {
      // The same key for the same user, kept alive; an order while no stream is connected.
      const again = await http(`${second.url}/fapi/v1/listenKey`, {
        method: 'POST',
        headers: { 'x-mbx-apikey': t.key.api_key },
      });
      expect(again.body.listenKey).toBe(listenKey);
      expect((await place(second.url, t, 'while-away')).status).toBe(200);
      const stream = await StreamClient.open(second.url, `/ws/${listenKey}`);
      expect((await stream.next(orderUpdate('while-away'))).o?.X).toBe('NEW');
      // Nothing from before the kill comes again: the place was saved after it was sent.
      expect(stream.received.some((m) => orderUpdate('before-kill')(m as Update))).toBe(false);
      await stream.close();
    } finally {
      await second.stop();
    }
  }, 90_000);
});
