import { Metrics } from '@perp/runtime';
import { parsePrometheusText } from '@perp/testing';
import type { BusMessage } from './bus';
import { silentLogger } from './logger';
import { MemoryBus } from './memory/memory-bus';
import { type ConsumerLag, type ConsumerObserver, ObservedBus } from './observed-bus';
import { busConformance } from './testing/bus-conformance';

/** Records what the bus reports, as a metrics system would. */
function recorder() {
  const batches: [string, string, number, number][] = [];
  let read: () => Promise<readonly ConsumerLag[]> = () => Promise.resolve([]);
  const observer: ConsumerObserver = {
    partition: (group, topic, partition) => (size) => batches.push([group, topic, partition, size]),
    lag: (r) => (read = r),
  };
  return { observer, batches, lag: () => read() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ObservedBus over MemoryBus: conformance', () => {
  busConformance({
    open: async (topics, replyTopic) => {
      const memory = new MemoryBus({ topics, replyTopic, logger: silentLogger, retry: { initialMs: 5 } });
      const bus = new ObservedBus(memory, recorder().observer);
      await bus.connect();
      return bus;
    },
    testTimeoutMs: 5_000,
    settleMs: 2_000,
  });
});

describe('ObservedBus', () => {
  async function open() {
    const r = recorder();
    const bus = new ObservedBus(new MemoryBus({ topics: { t: 2 }, logger: silentLogger }), r.observer);
    await bus.connect();
    return { bus, ...r };
  }

  it('reports the size of every handled batch per group, topic and partition', async () => {
    const { bus, batches } = await open();
    const p = bus.partitionFor('t', 'a');
    for (let i = 0; i < 5; i++) await bus.publish('t', 'a', { i });
    await bus.subscribe({ groupId: 'batched', topics: ['t'], batchHandler: () => undefined });
    await bus.subscribe({ groupId: 'single', topics: ['t'], handler: async () => undefined });
    await tick();
    expect(batches.filter(([g]) => g === 'batched')).toEqual([['batched', 't', p, 5]]);
    expect(batches.filter(([g]) => g === 'single')).toEqual(Array(5).fill(['single', 't', p, 1]));
    await bus.close();
  });

  it('measures lag as the end offset minus the next offset to handle, when asked', async () => {
    const { bus, lag } = await open();
    const p = bus.partitionFor('t', 'a');
    let hold = true;
    const handled: BusMessage[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handler: (m) => {
        if (hold && handled.length === 1) throw new Error('not yet');
        handled.push(m);
      },
      start: 'earliest',
    });
    expect(await lag()).toEqual([]); // nothing handled: no position yet
    for (let i = 0; i < 4; i++) await bus.publish('t', 'a', { i });
    await tick();
    expect(handled).toHaveLength(1);
    expect(await lag()).toEqual([{ group: 'g', topic: 't', partition: p, lag: 3 }]);
    hold = false;
    while (handled.length < 4) await new Promise((r) => setTimeout(r, 20));
    expect(await lag()).toEqual([{ group: 'g', topic: 't', partition: p, lag: 0 }]);
    await bus.close();
  });

  it('does not count a failed handler call, and forgets revoked partitions', async () => {
    const { bus, batches, lag } = await open();
    let fail = true;
    await bus.publish('t', 'a', {});
    const sub = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handler: () => {
        if (fail) {
          fail = false;
          throw new Error('once');
        }
      },
    });
    while (batches.length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(batches).toHaveLength(1);
    expect(await lag()).toHaveLength(1);
    await sub.close();
    expect(await lag()).toEqual([]);
    await bus.close();
  });

  it('reports every failed handler call and how long a partition has been failing, until one succeeds', async () => {
    const metrics = new Metrics();
    const memory = new MemoryBus({
      topics: { t: 2 },
      logger: silentLogger,
      retry: { initialMs: 5, maxMs: 20 },
    });
    const bus = new ObservedBus(memory, metrics.consumers);
    await bus.connect();
    const p = bus.partitionFor('t', 'a');
    const labels = { group: 'g', topic: 't', partition: String(p) };
    const scrape = async () => {
      const samples = parsePrometheusText(await metrics.scrape());
      const of = (name: string) =>
        samples.find(
          (x) => x.name === name && x.labels.group === 'g' && x.labels.partition === labels.partition,
        );
      return {
        failures: of('perp_bus_handler_failures_total')?.value ?? 0,
        failing: of('perp_bus_handler_failing_seconds')?.value,
      };
    };
    let calls = 0;
    let healed = false;
    const handled: unknown[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      batchHandler: async (ms) => {
        calls++;
        if (!healed) throw new Error('divergence');
        handled.push(...ms.map((m) => m.value));
      },
    });
    await bus.publish('t', 'a', { i: 0 });
    while (calls < 4) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 30));
    const stuck = await scrape();
    expect(stuck.failures).toBeGreaterThanOrEqual(4);
    expect(stuck.failing).toBeGreaterThanOrEqual(0.03);
    // The later message waits behind the failing one.
    await bus.publish('t', 'a', { i: 1 });
    expect((await scrape()).failing).toBeGreaterThan(stuck.failing!);
    expect(handled).toEqual([]);
    healed = true;
    while (handled.length < 2) await new Promise((r) => setTimeout(r, 5));
    const after = await scrape();
    expect(after).toEqual({ failures: after.failures, failing: undefined });
    expect(after.failures).toBeGreaterThanOrEqual(stuck.failures);
    await bus.close();
  });

  it('reports a handler that throws synchronously as failed, and the adapter still retries it', async () => {
    const failed: [string, string, number][] = [];
    const r = recorder();
    const bus = new ObservedBus(
      new MemoryBus({ topics: { t: 1 }, logger: silentLogger, retry: { initialMs: 5 } }),
      {
        ...r.observer,
        failed: (...at) => failed.push(at),
      },
    );
    await bus.connect();
    let fail = 2;
    const seen: unknown[] = [];
    await bus.subscribe({
      groupId: 'sync',
      topics: ['t'],
      handler: (m) => {
        if (fail-- > 0) throw new Error('not yet');
        seen.push(m.value);
      },
    });
    await bus.publish('t', 'a', { x: 1 });
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(failed).toEqual([
      ['sync', 't', 0],
      ['sync', 't', 0],
    ]);
    expect(r.batches).toEqual([['sync', 't', 0, 1]]);
    await bus.close();
  });

  it("forgets a group's positions and series once its last subscription here closes", async () => {
    const metrics = new Metrics();
    const bus = new ObservedBus(new MemoryBus({ topics: { t: 2 }, logger: silentLogger }), metrics.consumers);
    await bus.connect();
    const groups = async () => {
      const samples = parsePrometheusText(await metrics.scrape());
      const names = ['perp_bus_batch_size_messages_count', 'perp_bus_consumer_lag_messages'];
      return [...new Set(samples.filter((x) => names.includes(x.name)).map((x) => x.labels.group))].sort();
    };
    const live = await bus.subscribe({ groupId: 'live', topics: ['t'], handler: () => undefined });
    const twice = [0, 1].map(() =>
      bus.subscribe({ groupId: 'twice', topics: ['t'], handler: () => undefined }),
    );
    const [first] = await Promise.all(twice);
    // Short-lived groups, one reader each (the gateway's user-stream replays).
    for (let i = 0; i < 50; i++) {
      let seen = false;
      const sub = await bus.subscribe({
        groupId: `replay.${i}`,
        topics: ['t'],
        handler: () => void (seen = true),
      });
      await bus.publish('t', 'a', { i });
      while (!seen) await tick();
      await sub.close();
      await sub.close(); // twice: counted once
    }
    await first!.close(); // the other subscription of the group still reads
    await bus.publish('t', 'a', {});
    await tick();
    expect(await groups()).toEqual(['live', 'twice']);
    await live.close();
    expect(await groups()).toEqual(['twice']);
    await bus.close();
  });
});
