import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { type AuthSecrets, encryptSecret, generateApiKey, MasterKeyring } from '@perp/auth';
import { MemoryHotStore } from '@perp/cache';
import type { ApiKeyEntity, ApiKeyRepository, UserRepository } from '@perp/persistence';
import type { Chain } from '@perp/domain';
import { ApiKeyCache, apiKeyRecordKey, recordOf } from './api-key-cache';

const ADDRESS = '0x' + 'ab'.repeat(20);
const USER_ID = '00000000-0000-4000-8000-000000000001';

/** The database as the cache sees it: rows by api_key, with an optional gate to hold a load. */
class FakeDb {
  rows = new Map<string, ApiKeyEntity>();
  loads = 0;
  gate?: Promise<void>;

  readonly apiKeys = {
    findByApiKey: async (apiKey: string, chain: string) => {
      this.loads++;
      const row = this.rows.get(apiKey);
      await this.gate;
      return row?.chain === chain ? { ...row } : undefined;
    },
    claimUnowned: async () => 0,
  } as unknown as ApiKeyRepository;

  readonly users = {
    findById: async (id: string) => (id === USER_ID ? { id, address: ADDRESS } : undefined),
  } as unknown as UserRepository;
}

describe('ApiKeyCache (two replicas sharing one hot store)', () => {
  let hot: MemoryHotStore;
  let db: FakeDb;
  let auth: AuthSecrets;
  let a: ApiKeyCache;
  let b: ApiKeyCache;

  function addKey(status: 'active' | 'disabled' = 'active') {
    const { apiKey, secretKey } = generateApiKey();
    const row = {
      id: `k-${randomBytes(4).toString('hex')}`,
      userId: USER_ID,
      chain: 'devnet',
      apiKey,
      secretCiphertext: encryptSecret(secretKey, auth.masterKeys, apiKey),
      label: '',
      ipWhitelist: '',
      status,
      createdAt: new Date(),
      lastUsedAt: null,
    } as ApiKeyEntity;
    db.rows.set(apiKey, row);
    return { apiKey, secretKey, row };
  }

  const cache = (secretCacheSize = 100) =>
    new ApiKeyCache(hot, db.apiKeys, db.users, auth, { recordTtlMs: 60_000, secretCacheSize }, {
      name: 'devnet',
    } as Chain);

  beforeEach(async () => {
    hot = new MemoryHotStore();
    db = new FakeDb();
    auth = { masterKeys: new MasterKeyring(randomBytes(32)), jwtSecret: 'x'.repeat(32), jwtTtlSeconds: 60 };
    a = cache();
    b = cache();
    await a.onModuleInit();
    await b.onModuleInit();
  });

  afterEach(async () => {
    await a.onModuleDestroy();
    await b.onModuleDestroy();
    await hot.close();
  });

  it('loads a key once from the database, then serves it from the hot store and memory', async () => {
    const { apiKey, secretKey, row } = addKey();
    const first = await a.resolve(apiKey);
    expect(first?.record).toEqual({
      id: row.id,
      userId: USER_ID,
      address: ADDRESS,
      status: 'active',
      ipWhitelist: '',
    });
    expect(first?.secret.reveal()).toBe(secretKey);
    expect(db.loads).toBe(1);
    await a.resolve(apiKey);
    expect(db.loads).toBe(1);
    // The other replica finds the record but must read the secret itself, once.
    expect((await b.resolve(apiKey))?.secret.reveal()).toBe(secretKey);
    await b.resolve(apiKey);
    expect(db.loads).toBe(2);
  });

  it('shares one database load among concurrent requests', async () => {
    const { apiKey } = addKey();
    const results = await Promise.all(Array.from({ length: 20 }, () => a.resolve(apiKey)));
    expect(results.every((r) => r?.record.status === 'active')).toBe(true);
    expect(db.loads).toBe(1);
  });

  it('answers undefined for an unknown key, without caching anything', async () => {
    expect(await a.resolve('f'.repeat(64))).toBeUndefined();
    expect(await hot.get(apiKeyRecordKey('f'.repeat(64)))).toBeUndefined();
  });

  it('a change stored by one replica is what the other sees on its next lookup', async () => {
    const { apiKey, row } = addKey();
    await a.resolve(apiKey);
    await b.resolve(apiKey);
    row.status = 'disabled';
    await a.store(apiKey, recordOf(row, ADDRESS));
    expect((await b.resolve(apiKey))?.record.status).toBe('disabled');
  });

  it('a revoked key is gone on every replica at once, and its secret leaves their memory', async () => {
    const { apiKey } = addKey();
    await a.resolve(apiKey);
    await b.resolve(apiKey);
    expect(b.holdsSecret(apiKey)).toBe(true);
    db.rows.delete(apiKey);
    await a.revoke(apiKey);
    expect(await b.resolve(apiKey)).toBeUndefined();
    expect(await a.resolve(apiKey)).toBeUndefined();
    for (let i = 0; i < 50 && b.holdsSecret(apiKey); i++) await new Promise((r) => setTimeout(r, 5));
    expect(b.holdsSecret(apiKey)).toBe(false);
    expect(a.holdsSecret(apiKey)).toBe(false);
  });

  it('a load that read the row before a delete cannot bring the key back', async () => {
    const { apiKey } = addKey();
    let release!: () => void;
    db.gate = new Promise((r) => (release = r));
    const racing = b.resolve(apiKey); // reads the row, then waits at the gate
    await new Promise((r) => setImmediate(r));
    db.rows.delete(apiKey);
    await a.revoke(apiKey);
    release();
    expect(await racing).toBeUndefined();
    expect(await b.resolve(apiKey)).toBeUndefined();
    expect(b.holdsSecret(apiKey)).toBe(false);
  });

  it('a load that read the row before a disable cannot undo it', async () => {
    const { apiKey, row } = addKey();
    let release!: () => void;
    db.gate = new Promise((r) => (release = r));
    const racing = b.resolve(apiKey);
    await new Promise((r) => setImmediate(r));
    row.status = 'disabled';
    await a.store(apiKey, recordOf(row, ADDRESS));
    release();
    expect((await racing)?.record.status).toBe('disabled');
    expect((await b.resolve(apiKey))?.record.status).toBe('disabled');
  });

  it('keeps at most secretCacheSize decrypted secrets (least recently used go first)', async () => {
    const small = cache(2);
    const keys = [addKey(), addKey(), addKey()];
    await small.resolve(keys[0]!.apiKey);
    await small.resolve(keys[1]!.apiKey);
    await small.resolve(keys[0]!.apiKey);
    await small.resolve(keys[2]!.apiKey);
    expect(small.cachedSecrets).toBe(2);
    expect([0, 1, 2].map((i) => small.holdsSecret(keys[i]!.apiKey))).toEqual([true, false, true]);
  });

  it('never puts a secret in the hot store, a log line or a serialisation', async () => {
    const { apiKey, secretKey, row } = addKey();
    const resolved = await a.resolve(apiKey);
    const stored = (await hot.get(apiKeyRecordKey(apiKey))) ?? '';
    expect(stored).not.toContain(secretKey);
    expect(stored).not.toContain(row.secretCiphertext);
    expect(JSON.stringify(resolved)).not.toContain(secretKey);
    expect(inspect(resolved, { depth: 10 })).not.toContain(secretKey);
  });

  it('a disabled key resolves with its status (the guard answers API_KEY_DISABLED)', async () => {
    const { apiKey } = addKey('disabled');
    expect((await a.resolve(apiKey))?.record.status).toBe('disabled');
  });
});
