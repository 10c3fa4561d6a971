import { silentLogger } from './logger';
import { MemoryBus } from './memory/memory-bus';
import { PartitionKeys } from './partition-keys';

describe('PartitionKeys', () => {
  it('finds one key per partition of a topic, the key at i landing on partition i, once per topic', async () => {
    const bus = new MemoryBus({ topics: { eight: 8, one: 1 }, logger: silentLogger });
    await bus.connect();
    const keys = new PartitionKeys(bus, 'copy');
    const eight = await keys.of('eight');
    expect(eight).toHaveLength(8);
    expect(eight.map((k) => bus.partitionFor('eight', k))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await keys.of('one')).toEqual(['copy-0']);
    expect(keys.of('eight')).toBe(keys.of('eight'));
    await expect(keys.of('missing')).rejects.toThrow();
    await bus.close();
  });
});
