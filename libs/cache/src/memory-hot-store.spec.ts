import { describeHotStoreConformance } from './hot-store.conformance';
import { MemoryHotStore } from './memory-hot-store';

describeHotStoreConformance('memory', async (options) => new MemoryHotStore(options));

describe('MemoryHotStore', () => {
  it('sweeps expired keys that nobody touches again', async () => {
    let now = 1_000;
    const store = new MemoryHotStore({ now: () => now });
    try {
      await store.set('a', '1', { ttlMs: 10 });
      await store.hset('b', { f: '1' });
      await store.expire('b', 20);
      await store.incrWindow('c', 1, 30);
      await store.set('d', 'kept');
      expect(store.size).toBe(4);
      now += 25;
      expect(store.size).toBe(2);
      expect((await store.incrWindow('c', 1, 30)).resetInMs).toBe(5);
      now += 5;
      expect(store.size).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('MemoryHotStore.localVersion', () => {
  let now = 1_000;
  let store: MemoryHotStore;
  beforeEach(() => (store = new MemoryHotStore({ now: () => now })));
  afterEach(() => store.close());

  /** Runs `write` and tells whether it changed `key`'s version. */
  const changes = async (key: string, write: () => Promise<unknown>) => {
    const before = store.localVersion(key);
    await write();
    return store.localVersion(key) !== before;
  };

  it('is 0 for a missing key and changes with every kind of write', async () => {
    expect(store.localVersion('s')).toBe(0);
    expect(await changes('s', () => store.set('s', '1'))).toBe(true);
    expect(await changes('s', () => store.set('s', '1'))).toBe(true); // the same value, written again
    expect(await changes('m', () => store.setMany([{ key: 'm', value: 'x' }]))).toBe(true);
    expect(await changes('n', () => store.setIfAbsent('n', 'x'))).toBe(true);
    expect(await changes('n', () => store.setIfAbsent('n', 'y'))).toBe(false);
    expect(await changes('w', () => store.incrWindow('w', 1, 1_000))).toBe(true);
    expect(await changes('w', () => store.incrWindow('w', 2, 1_000))).toBe(true);
    expect(await changes('w', () => store.incrWindow('w', 0, 1_000))).toBe(false);
    expect(await changes('h', () => store.hset('h', { a: '1', b: '2' }))).toBe(true);
    expect(await changes('h', () => store.hset('h', { a: '3' }))).toBe(true);
    expect(await changes('h', () => store.hdel('h', 'missing'))).toBe(false);
    expect(await changes('h', () => store.hdel('h', 'a'))).toBe(true);
    expect(await changes('h', () => store.hupdate('h', { c: '1' }, ['b']))).toBe(true);
    expect(await changes('h', () => store.hupdate('h', { d: '1' }, [], { replace: true }))).toBe(true);
    expect(await changes('h', () => store.hincrby('h', 'd', '1.5'))).toBe(true);
    expect(await changes('s', () => store.del('s'))).toBe(true);
    expect(store.localVersion('s')).toBe(0);
  });

  it('does not change on reads, and never repeats for a key written again after a delete', async () => {
    await store.hset('h', { a: '1' });
    await store.set('s', 'x');
    const [h, s] = [store.localVersion('h'), store.localVersion('s')];
    await store.hgetall('h');
    await store.hget('h', 'a');
    await store.get('s');
    await store.incrWindow('s2', 0, 1_000);
    expect([store.localVersion('h'), store.localVersion('s')]).toEqual([h, s]);
    await store.del('s');
    await store.set('s', 'x');
    expect(store.localVersion('s')).toBeGreaterThan(s);
  });

  it('is 0 once the key expired', async () => {
    await store.set('t', 'x', { ttlMs: 10 });
    expect(store.localVersion('t')).toBeGreaterThan(0);
    now += 10;
    expect(store.localVersion('t')).toBe(0);
  });
});
