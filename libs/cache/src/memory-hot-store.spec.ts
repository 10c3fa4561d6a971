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
