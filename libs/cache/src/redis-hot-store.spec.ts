import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { describeHotStoreConformance, waitFor } from './hot-store.conformance';
import { RedisHotStore } from './redis-hot-store';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';
/** Every key and channel of this run is under this prefix (parallel runs share the server). */
const RUN = `perp-test:${randomBytes(6).toString('hex')}:`;
let admin: Redis;
let tests = 0;

beforeAll(async () => {
  admin = new Redis(REDIS_URL);
});
afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${RUN}*`, 'COUNT', 1000);
    if (keys.length) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await admin.quit();
});

// A prefix per test: keys of one test never meet another's.
describeHotStoreConformance('redis', (options) =>
  RedisHotStore.connect(REDIS_URL, { ...options, prefix: `${RUN}${tests++}:` }),
);

describe('RedisHotStore', () => {
  it('stores under its prefix, with the counter window as a Redis TTL', async () => {
    const store = await RedisHotStore.connect(REDIS_URL, { prefix: `${RUN}p:` });
    try {
      await store.set('k', 'v');
      await store.incrWindow('rate', 2, 60_000);
      await store.hincrby('bal', 'USDT', '1.25');
      expect(await admin.get(`${RUN}p:k`)).toBe('v');
      expect(await admin.get(`${RUN}p:rate`)).toBe('2');
      const ttl = await admin.pttl(`${RUN}p:rate`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await admin.hget(`${RUN}p:bal`, 'USDT')).toBe('1.25');
      expect(await admin.exists('k')).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('shares keys and channels between instances with the same prefix only', async () => {
    const [a, b, other] = await Promise.all([
      RedisHotStore.connect(REDIS_URL, { prefix: `${RUN}shared:` }),
      RedisHotStore.connect(REDIS_URL, { prefix: `${RUN}shared:` }),
      RedisHotStore.connect(REDIS_URL, { prefix: `${RUN}other:` }),
    ]);
    try {
      await a.set('k', 'from a');
      expect(await b.get('k')).toBe('from a');
      expect(await other.get('k')).toBeUndefined();

      const atB: string[] = [];
      const atOther: string[] = [];
      await b.subscribe('news', (m) => void atB.push(m));
      await other.subscribe('news', (m) => void atOther.push(m));
      await a.publish('news', 'hello');
      await other.publish('news', 'own');
      await waitFor(() => atB.length === 1 && atOther.length === 1);
      expect(atB).toEqual(['hello']);
      expect(atOther).toEqual(['own']);
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });

  it('never shows a reader on another connection a half-applied update', async () => {
    const [writer, reader] = await Promise.all([
      RedisHotStore.connect(REDIS_URL, { prefix: `${RUN}tx:` }),
      RedisHotStore.connect(REDIS_URL, { prefix: `${RUN}tx:` }),
    ]);
    try {
      // Updates far above Redis's 16 KB read size: Redis serves other connections between reads,
      // so without MULTI a reader can land between the HSET and the HDELs.
      const state = (tag: string) =>
        Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`${tag}${i}`, tag]));
      const [a, b] = [state('a'), state('b')];
      const whole = (hash: Record<string, string>) => {
        const tags = new Set(Object.values(hash));
        return tags.size === 1 && Object.keys(hash).length === 3_000 ? [...tags][0] : 'mixed';
      };
      await writer.hset('swap', a);
      const writes: Promise<void>[] = [];
      const reads: Promise<Record<string, string>>[] = [];
      for (let i = 0; i < 20; i++) {
        const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
        writes.push(writer.hupdate('swap', to, Object.keys(from)));
        reads.push(reader.hgetall('swap'));
      }
      await Promise.all(writes);
      for (const read of await Promise.all(reads)) expect(['a', 'b']).toContain(whole(read));
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  });

  it('makes no round trip for an update with nothing to do', async () => {
    const store = await RedisHotStore.connect(REDIS_URL, { prefix: `${RUN}noop:` });
    await store.close();
    // A command on the closed connection would reject.
    await expect(store.hupdate('k', {}, [])).resolves.toBeUndefined();
    await expect(store.hupdate('k', {})).resolves.toBeUndefined();
    await expect(store.hupdate('k', {}, [], { replace: true })).rejects.toThrow();
  });

  it('refuses to start when Redis cannot be reached', async () => {
    await expect(RedisHotStore.connect('redis://127.0.0.1:1/0')).rejects.toThrow(
      /^cannot connect to Redis: .*ECONNREFUSED/,
    );
  });
});
