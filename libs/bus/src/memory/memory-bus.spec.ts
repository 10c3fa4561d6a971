import { busConformance } from '../testing/bus-conformance';
import { silentLogger } from '../logger';
import { IN_PROCESS_VALUE, MemoryBus } from './memory-bus';

describe('MemoryBus conformance', () => {
  busConformance({
    open: async (topics, replyTopic) => {
      const bus = new MemoryBus({ topics, replyTopic, logger: silentLogger, retry: { initialMs: 5 } });
      await bus.connect();
      return bus;
    },
    testTimeoutMs: 5_000,
    settleMs: 2_000,
  });
});

describe('MemoryBus', () => {
  const open = async (cloneValues?: boolean) => {
    const bus = new MemoryBus({ topics: { t: 2 }, logger: silentLogger, cloneValues });
    await bus.connect();
    return bus;
  };

  it('hands consumers the published object itself, or a JSON copy with cloneValues', async () => {
    for (const clone of [false, true]) {
      const bus = await open(clone);
      const got: unknown[] = [];
      await bus.subscribe({ groupId: 'g', topics: ['t'], handler: (m) => void got.push(m.value) });
      const value = { at: new Date(0), n: 1 };
      await bus.publish('t', 'k', value);
      await new Promise((r) => setImmediate(r));
      if (clone) expect(got).toEqual([{ at: '1970-01-01T00:00:00.000Z', n: 1 }]);
      else expect(got[0]).toBe(value);
      // Marked (not enumerable) as built in this process only when handed over as is.
      expect((got[0] as Record<symbol, unknown>)[IN_PROCESS_VALUE]).toBe(clone ? undefined : true);
      expect(Object.keys(got[0] as object)).toEqual(['at', 'n']);
      await bus.close();
    }
  });

  it('splits partitions over three members and rebalances as they leave', async () => {
    const bus = new MemoryBus({ topics: { t: 6 }, logger: silentLogger });
    await bus.connect();
    const subs = [];
    for (let i = 0; i < 3; i++)
      subs.push(await bus.subscribe({ groupId: 'g', topics: ['t'], handler: () => {} }));
    expect(subs.map((s) => s.assignment().length)).toEqual([2, 2, 2]);
    await subs[1]!.close();
    expect(subs.map((s) => s.assignment().length)).toEqual([3, 0, 3]);
    await subs[0]!.close();
    expect(
      subs[2]!
        .assignment()
        .map((tp) => tp.partition)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5]);
    await bus.close();
    expect(subs[2]!.assignment()).toEqual([]);
  });

  it('refuses to publish once closed', async () => {
    const bus = await open();
    await bus.close();
    await expect(bus.publish('t', 'k', {})).rejects.toThrow('the bus is not connected');
    expect(bus.isConnected()).toBe(false);
  });
});
