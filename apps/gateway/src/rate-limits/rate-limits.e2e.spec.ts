import { randomBytes } from 'node:crypto';
import { Controller, HttpCode, Module, Post } from '@nestjs/common';
import type { RawParams } from '@perp/contracts';
import { userIdForAddress } from '@perp/contracts';
import { createTestSchema, type TestSchema } from '@perp/persistence';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { Wallet } from 'ethers';
import Redis from 'ioredis';
import {
  type AccessApp,
  authError,
  createKey,
  http,
  type HttpResponse,
  json,
  type KeyPair,
  login,
  signed,
  startAccessApp,
} from '../access/access.harness';
import { Caller, type FapiCaller, FapiParams, Signed } from '../access/signed/signed';
import { FapiGeneralController } from '../fapi/fapi-general.controller';
import { batchOrderCount } from './rate-limit-rules';
import { RateLimitsModule } from './rate-limits.module';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

/** Orders the test handlers placed, by user: a refused request must not reach them. */
const placed = new Map<string, number>();
const place = (userId: string, n: number) => placed.set(userId, (placed.get(userId) ?? 0) + n);

/** Order endpoints as their controllers will declare them (`orders` on `@Signed()`). */
@Controller('fapi/v1')
class TestOrdersController {
  @Post('order')
  @HttpCode(200)
  @Signed({ type: 'TRADE', weight: 1, orders: 1 })
  order(@Caller() caller: FapiCaller) {
    place(caller.userId, 1);
    return { status: 'NEW' };
  }

  @Post('batchOrders')
  @HttpCode(200)
  @Signed({ type: 'TRADE', weight: 5, orders: batchOrderCount })
  batchOrders(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    const n = batchOrderCount(params);
    place(caller.userId, n);
    return Array.from({ length: n }, () => ({ status: 'NEW' }));
  }
}

@Module({ controllers: [FapiGeneralController, TestOrdersController] })
class TestFapiModule {}

const WEIGHT_1M = 'x-mbx-used-weight-1m';
const ORDERS_10S = 'x-mbx-order-count-10s';
const ORDERS_1M = 'x-mbx-order-count-1m';

const tooMany = { code: -1003, msg: expect.any(String) };

/** Count headers of an answer, as numbers (undefined when absent). */
function counts(r: HttpResponse) {
  const n = (name: string) => (r.headers[name] === undefined ? undefined : Number(r.headers[name]));
  return {
    weight: n(WEIGHT_1M),
    legacyWeight: n('x-mbx-used-weight'),
    orders10s: n(ORDERS_10S),
    orders1m: n(ORDERS_1M),
    retryAfter: n('retry-after'),
  };
}

// 127.0.0.1 is the trusted reverse proxy: the client is the address it appends to X-Forwarded-For.
// Each test speaks for clients of its own, so that their budgets do not meet.
let nextClient = 1;
const newClientIp = () => `10.9.${Math.floor(nextClient / 250)}.${nextClient++ % 250}`;
const viaProxy = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

describe('FAPI rate limits over HTTP (two gateway replicas, Postgres and Redis)', () => {
  let schema: TestSchema;
  let a: AccessApp;
  let b: AccessApp;
  let redis: Redis;
  const prefix = `perp-test-${randomBytes(6).toString('hex')}:`;

  const get = (app: AccessApp, path: string, ip: string) => http(`${app.url}${path}`, viaProxy(ip));

  beforeAll(async () => {
    schema = await createTestSchema();
    redis = new Redis(REDIS_URL);
    const start = () =>
      startAccessApp({
        schema: schema.schema,
        env: {
          REDIS_URL,
          TRUSTED_PROXIES: '127.0.0.1',
          RATE_LIMIT_WEIGHT_PER_MIN: '40',
          RATE_LIMIT_ORDERS_PER_10S: '4',
          RATE_LIMIT_ORDERS_PER_MIN: '6',
        },
        cache: { prefix },
        imports: [RateLimitsModule, TestFapiModule],
      });
    a = await start();
    b = await start();
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await schema?.drop();
  });

  it('exchangeInfo publishes the configured ceilings (RATE_LIMIT_*), not Binance defaults', async () => {
    const { body } = await get(a, '/fapi/v1/exchangeInfo', newClientIp());
    expect((body as { rateLimits: unknown }).rateLimits).toEqual([
      { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 40 },
      { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 6 },
      { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 4 },
    ]);
  });

  describe('request weight per client IP', () => {
    it('every answer carries the used weight; at the ceiling 429 -1003 with Retry-After, counting nothing', async () => {
      const ip = newClientIp();
      const first = await get(a, '/fapi/v1/exchangeInfo', ip);
      expect(first.status).toBe(200);
      expect(counts(first)).toMatchObject({ weight: 1, legacyWeight: 1, orders10s: undefined });
      for (let i = 2; i <= 39; i++) expect(counts(await get(a, '/fapi/v1/ping', ip)).weight).toBe(i);
      const last = await get(a, '/fapi/v1/time', ip);
      expect([last.status, counts(last).weight]).toEqual([200, 40]);

      const refused = await get(a, '/fapi/v1/time', ip);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(tooMany);
      expect(refused.body.msg).toContain(`IP(${ip})`);
      expect(counts(refused)).toMatchObject({ weight: 40, legacyWeight: 40 });
      expect(counts(refused).retryAfter).toBeGreaterThanOrEqual(1);
      expect(counts(refused).retryAfter).toBeLessThanOrEqual(60);
      // Refused requests are not counted: the used weight stays at the ceiling.
      expect(counts(await get(a, '/fapi/v1/ping', ip))).toMatchObject({ weight: 40 });

      // Another client behind the same proxy has its own budget.
      const other = await get(a, '/fapi/v1/ping', newClientIp());
      expect([other.status, counts(other).weight]).toEqual([200, 1]);
    });

    it('a direct client cannot pick its budget with its own X-Forwarded-For', async () => {
      const forged = newClientIp();
      const direct = (xff: string) =>
        http(`${a.url}/fapi/v1/ping`, { headers: { 'x-forwarded-for': xff }, localAddress: '127.0.0.3' });
      expect(counts(await direct(forged)).weight).toBe(1);
      // Counted as 127.0.0.3 whatever it claims; the claimed address's budget is untouched.
      expect(counts(await direct(newClientIp())).weight).toBe(2);
      expect(counts(await get(a, '/fapi/v1/ping', forged)).weight).toBe(1);
    });

    it('replicas share the counters (hot store)', async () => {
      const ip = newClientIp();
      expect(counts(await get(a, '/fapi/v1/ping', ip)).weight).toBe(1);
      expect(counts(await get(b, '/fapi/v1/ping', ip)).weight).toBe(2);
      expect(counts(await get(a, '/fapi/v1/exchangeInfo', ip)).weight).toBe(3);
    });

    it('signed endpoints spend their declared weight, before authentication, and errors carry it', async () => {
      const ip = newClientIp();
      const nobody: KeyPair = { api_key: 'f'.repeat(64), secret_key: 'x' };
      // GET positionSide/dual weighs 30 (spec); a failed authentication still spends it.
      const unknown = await signed(a.url, '/fapi/v1/positionSide/dual', nobody, viaProxy(ip));
      expect([unknown.status, unknown.body]).toEqual([401, authError('INVALID_API_KEY')]);
      expect(counts(unknown).weight).toBe(30);
      const again = await signed(a.url, '/fapi/v1/positionSide/dual', nobody, viaProxy(ip));
      expect([again.status, again.body, counts(again).weight]).toEqual([429, tooMany, 30]);

      const token = await login(a.url, Wallet.createRandom());
      const key = await createKey(a.url, token);
      const ip2 = newClientIp();
      const dual = await signed(a.url, '/fapi/v1/positionSide/dual', key, viaProxy(ip2));
      expect([dual.status, counts(dual).weight]).toEqual([200, 30]);
      const margin = (k: KeyPair) =>
        signed(a.url, '/fapi/v1/marginType', k, {
          method: 'POST',
          jsonBody: JSON.stringify({ symbol: 'BTCUSDT', marginType: 'CROSSED' }),
          ...viaProxy(ip2),
        });
      const m = await margin(key);
      expect([m.status, counts(m)]).toMatchObject([200, { weight: 31, orders10s: undefined }]);
      // A business error carries the count too.
      const bad = await signed(a.url, '/fapi/v1/marginType', key, {
        method: 'POST',
        jsonBody: JSON.stringify({ symbol: 'NOPE', marginType: 'CROSSED' }),
        ...viaProxy(ip2),
      });
      expect([bad.status, bad.body.code, counts(bad).weight]).toEqual([400, -1121, 32]);
      // 32 + 30 > 40: refused, while a lighter request still fits.
      const heavy = await signed(b.url, '/fapi/v1/positionSide/dual', key, viaProxy(ip2));
      expect([heavy.status, heavy.body, counts(heavy).weight]).toEqual([429, tooMany, 32]);
      expect(counts(heavy).retryAfter).toBeGreaterThanOrEqual(1);
      expect(counts(await margin(key)).weight).toBe(33);
    });

    it('native routes carry no weight', async () => {
      const native = await json(`${a.url}/api/v1/api-keys`, 'GET');
      expect(native.headers[WEIGHT_1M]).toBeUndefined();
    });
  });

  describe('order count per account', () => {
    let token1: string;
    let key1: KeyPair & { id: string };
    let key1b: KeyPair & { id: string };
    let key2: KeyPair;
    let user1: string;
    let user2: string;

    beforeAll(async () => {
      const w1 = Wallet.createRandom();
      const w2 = Wallet.createRandom();
      token1 = await login(a.url, w1);
      key1 = await createKey(a.url, token1);
      key1b = await createKey(a.url, token1);
      key2 = await createKey(a.url, await login(a.url, w2));
      user1 = userIdForAddress(w1.address.toLowerCase());
      user2 = userIdForAddress(w2.address.toLowerCase());
    });

    const order = (app: AccessApp, key: KeyPair, ip: string) =>
      signed(app.url, '/fapi/v1/order', key, {
        method: 'POST',
        jsonBody: JSON.stringify({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.001' }),
        ...viaProxy(ip),
      });
    const batch = (app: AccessApp, key: KeyPair, ip: string, n: number) =>
      signed(app.url, '/fapi/v1/batchOrders', key, {
        method: 'POST',
        params: { batchOrders: JSON.stringify(Array.from({ length: n }, () => ({ symbol: 'BTCUSDT' }))) },
        ...viaProxy(ip),
      });

    it('counts orders per user over 10 s and 1 min, refuses past the ceiling, and the refusal changes nothing', async () => {
      const ip = newClientIp();
      const b3 = await batch(a, key1, ip, 3); // batchOrders counts its entries
      expect(b3.status).toBe(200);
      expect(counts(b3)).toMatchObject({ weight: 5, orders10s: 3, orders1m: 3 });
      const o4 = await order(b, key1, ip); // the other replica continues the count
      expect([o4.status, counts(o4)]).toMatchObject([200, { weight: 6, orders10s: 4, orders1m: 4 }]);
      expect(placed.get(user1)).toBe(4);

      const refused = await order(a, key1, ip);
      expect([refused.status, refused.body]).toEqual([429, tooMany]);
      expect(refused.body.msg).toContain('10 SECOND');
      expect(counts(refused)).toMatchObject({ orders10s: 4, orders1m: 4, weight: 7 });
      expect(counts(refused).retryAfter).toBeGreaterThanOrEqual(1);
      expect(counts(refused).retryAfter).toBeLessThanOrEqual(10);
      // A batch that would pass the ceiling is refused whole.
      expect((await batch(a, key1, ip, 2)).status).toBe(429);
      // The handler never ran and the counts did not move.
      expect(placed.get(user1)).toBe(4);
      expect(counts(await batch(a, key1, ip, 0))).toMatchObject({ orders10s: 4, orders1m: 4 });

      // Per account: the user's other key, from elsewhere, is refused too (and leaves no trace).
      const otherKey = await order(b, key1b, newClientIp());
      expect([otherKey.status, counts(otherKey)]).toMatchObject([429, { orders10s: 4, weight: 1 }]);
      const keys = (await json(`${a.url}/api/v1/api-keys`, 'GET', undefined, token1)).body as {
        id: string;
        last_used_at: string | null;
      }[];
      expect(keys.find((k) => k.id === key1b.id)?.last_used_at).toBeNull();
      expect(keys.find((k) => k.id === key1.id)?.last_used_at).toEqual(expect.any(String));

      // Another account from the same IP has its own count.
      const user2Order = await order(a, key2, ip);
      expect([user2Order.status, counts(user2Order)]).toMatchObject([200, { orders10s: 1, orders1m: 1 }]);
      expect(placed.get(user2)).toBe(1);
    });

    it('a refused authentication counts no order', async () => {
      const ip = newClientIp();
      const forged = await order(a, { ...key2, secret_key: 'not-the-secret' }, ip);
      expect([forged.status, forged.body]).toEqual([401, authError('SIGNATURE_INVALID')]);
      expect(counts(forged).orders10s).toBeUndefined();
      expect(counts(await batch(a, key2, ip, 0))).toMatchObject({ orders10s: 1 });
    });
  });
});

describe('FAPI rate limits in the gateway module (embedded exchange)', () => {
  let ex: InProcessExchange;
  const get = async (path: string) => {
    const r = await fetch(`${ex.url}${path}`);
    const weight = r.headers.get(WEIGHT_1M);
    return { status: r.status, weight: weight === null ? undefined : Number(weight), body: await r.json() };
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({ RATE_LIMIT_WEIGHT_PER_MIN: '45' });
  });
  afterAll(() => ex?.close());

  it('weighs the public endpoints as the spec says and refuses past the ceiling', async () => {
    expect(await get('/fapi/v1/ticker/24hr')).toMatchObject({ status: 200, weight: 40 });
    expect(await get('/fapi/v1/ticker/24hr?symbol=BTCUSDT')).toMatchObject({ status: 200, weight: 41 });
    expect(await get('/fapi/v1/ticker/24hr?symbol=NOPE')).toMatchObject({ status: 400, weight: 42 });
    expect(await get('/fapi/v1/exchangeInfo')).toMatchObject({ status: 200, weight: 43 });
    expect(await get('/fapi/v1/ticker/24hr')).toMatchObject({ status: 429, weight: 43, body: tooMany });
    expect(await get('/fapi/v1/ping')).toMatchObject({ status: 200, weight: 44 });
    // The native API is not weighed.
    const native = await fetch(`${ex.url}/api/v1/markets`);
    expect([native.status, native.headers.get(WEIGHT_1M)]).toEqual([200, null]);
  });
});
