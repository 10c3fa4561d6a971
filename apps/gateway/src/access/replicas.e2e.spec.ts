import { randomBytes } from 'node:crypto';
import { ApiKeyRepository, createTestSchema, type TestSchema } from '@perp/persistence';
import { Wallet } from 'ethers';
import Redis from 'ioredis';
import {
  type AccessApp,
  authError,
  createKey,
  http,
  json,
  login,
  nativeError,
  signed,
  startAccessApp,
} from './access.harness';
import { ApiKeyCache } from './signed/api-key-cache';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

// Two gateway replicas: one database, one Redis, nothing else shared.
describe('two gateway replicas sharing Postgres and Redis', () => {
  let schema: TestSchema;
  let a: AccessApp;
  let b: AccessApp;
  let bClosed = false;
  let redis: Redis;
  const prefix = `perp-test-${randomBytes(6).toString('hex')}:`;
  const secrets: string[] = [];
  let token: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    redis = new Redis(REDIS_URL);
    // A long flush interval: the database sees last_used_at only at shutdown.
    const start = () =>
      startAccessApp({
        schema: schema.schema,
        env: { REDIS_URL },
        cache: { prefix },
        access: { lastUsedFlushMs: 3_600_000 },
      });
    a = await start();
    b = await start();
    token = await login(a.url, Wallet.createRandom());
  });

  afterAll(async () => {
    await a?.close();
    if (!bClosed) await b?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await schema?.drop();
  });

  it('a nonce issued by one replica logs in on the other, once', async () => {
    const wallet = Wallet.createRandom();
    const address = wallet.address.toLowerCase();
    const t = (await http(`${a.url}/api/v1/auth/nonce/${address}`)).body.typed_data;
    const body = {
      address,
      signature: await wallet.signTypedData(t.domain, t.types, t.message),
      timestamp: t.message.timestamp,
    };
    expect((await json(`${b.url}/api/v1/auth/login`, 'POST', body)).status).toBe(200);
    const replay = await json(`${a.url}/api/v1/auth/login`, 'POST', body);
    expect([replay.status, replay.body]).toEqual([404, nativeError('USER_NOT_FOUND')]);
  });

  it('only one of two concurrent logins with one signature, on two replicas, succeeds', async () => {
    const wallet = Wallet.createRandom();
    const address = wallet.address.toLowerCase();
    const t = (await http(`${a.url}/api/v1/auth/nonce/${address}`)).body.typed_data;
    const body = {
      address,
      signature: await wallet.signTypedData(t.domain, t.types, t.message),
      timestamp: t.message.timestamp,
    };
    const results = await Promise.all([
      json(`${a.url}/api/v1/auth/login`, 'POST', body),
      json(`${b.url}/api/v1/auth/login`, 'POST', body),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
  });

  it('a key disabled, re-enabled, re-whitelisted or deleted on one replica is treated so on the other at once', async () => {
    const k = await createKey(a.url, token);
    secrets.push(k.secret_key);
    const onA = () => signed(a.url, '/fapi/v1/positionSide/dual', k);
    const onB = () => signed(b.url, '/fapi/v1/positionSide/dual', k);
    expect([(await onA()).status, (await onB()).status]).toEqual([200, 200]);

    expect(
      (await json(`${a.url}/api/v1/api-keys/${k.id}`, 'PUT', { status: 'disabled' }, token)).status,
    ).toBe(200);
    // No waiting: the very next request on the other replica is refused.
    for (const res of [await onB(), await onA()])
      expect([res.status, res.body]).toEqual([401, authError('API_KEY_DISABLED')]);

    expect((await json(`${b.url}/api/v1/api-keys/${k.id}`, 'PUT', { status: 'active' }, token)).status).toBe(
      200,
    );
    expect([(await onA()).status, (await onB()).status]).toEqual([200, 200]);

    await json(`${b.url}/api/v1/api-keys/${k.id}`, 'PUT', { ip_whitelist: '10.0.0.1' }, token);
    expect([(await onA()).body, (await onB()).body]).toEqual([
      authError('IP_NOT_ALLOWED'),
      authError('IP_NOT_ALLOWED'),
    ]);
    await json(`${a.url}/api/v1/api-keys/${k.id}`, 'PUT', { ip_whitelist: '' }, token);
    expect([(await onA()).status, (await onB()).status]).toEqual([200, 200]);

    const cacheOfA = a.app.get(ApiKeyCache);
    expect(cacheOfA.holdsSecret(k.api_key)).toBe(true);
    expect((await json(`${b.url}/api/v1/api-keys/${k.id}`, 'DELETE', undefined, token)).status).toBe(204);
    for (const res of [await onA(), await onB()])
      expect([res.status, res.body]).toEqual([401, authError('INVALID_API_KEY')]);
    // The deletion is broadcast: replica A forgets the decrypted secret too.
    for (let i = 0; i < 100 && cacheOfA.holdsSecret(k.api_key); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(cacheOfA.holdsSecret(k.api_key)).toBe(false);
  });

  it('shows a use on one replica in the list served by the other; the database gets it at shutdown', async () => {
    const k = await createKey(a.url, token);
    secrets.push(k.secret_key);
    const before = Date.now();
    expect((await signed(b.url, '/fapi/v1/positionSide/dual', k)).status).toBe(200);
    const listed = (await json(`${a.url}/api/v1/api-keys`, 'GET', undefined, token)).body.find(
      (x: { id: string }) => x.id === k.id,
    );
    expect(Date.parse(listed.last_used_at)).toBeGreaterThanOrEqual(before);
    const repo = a.app.get(ApiKeyRepository);
    expect((await repo.findByApiKey(k.api_key, 'devnet'))?.lastUsedAt).toBeNull();

    await b.close();
    bClosed = true;
    expect((await repo.findByApiKey(k.api_key, 'devnet'))?.lastUsedAt?.toISOString()).toBe(
      listed.last_used_at,
    );
  });

  it('keeps no secret in Redis: records and markers only', async () => {
    const k = await createKey(a.url, token);
    secrets.push(k.secret_key);
    expect((await signed(a.url, '/fapi/v1/positionSide/dual', k)).status).toBe(200);
    const keys = await redis.keys(`${prefix}*`);
    expect(keys).toContain(`${prefix}api-key:${k.api_key}`);
    const values: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'string') values.push((await redis.get(key)) ?? '');
      if (type === 'hash') values.push(JSON.stringify(await redis.hgetall(key)));
    }
    const dump = keys.join('\n') + values.join('\n');
    for (const s of secrets) expect(dump.includes(s)).toBe(false);
    expect(dump).not.toContain('v1:');
  });
});
