import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bus, SubscribeOptions } from '../bus';
import { busConformance } from '../testing/bus-conformance';
import { silentLogger } from '../logger';
import { MemoryBus } from './memory-bus';

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

describe('MemoryBus conformance, every consumer in the background', () => {
  busConformance({
    open: async (topics, replyTopic) => {
      const bus = new MemoryBus({ topics, replyTopic, logger: silentLogger, retry: { initialMs: 5 } });
      await bus.connect();
      const subscribe = bus.subscribe.bind(bus);
      bus.subscribe = <T>(o: SubscribeOptions<T>) => subscribe({ ...o, background: true });
      return bus as Bus;
    },
    testTimeoutMs: 5_000,
    settleMs: 2_000,
  });
});

describe('MemoryBus background consumers', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'bus-bg-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const journaled of [false, true]) {
    it(`run after the foreground chain a message starts${journaled ? ' (journaled)' : ''}`, async () => {
      const bus = new MemoryBus({
        topics: { orders: 1, fills: 1 },
        logger: silentLogger,
        ...(journaled ? { journal: { dir, fsync: 'never' as const } } : {}),
        backgroundMaxDelayMs: 5_000,
      });
      await bus.connect();
      const seen: string[] = [];
      // Foreground: each order becomes a fill after an await (a hop of the order path).
      await bus.subscribe({
        groupId: 'risk',
        topics: ['orders'],
        batchHandler: async (ms) => {
          for (const m of ms) seen.push(`risk ${m.offset}`);
          await Promise.all(ms.map((m) => bus.publish('fills', 'k', m.value)));
        },
      });
      await bus.subscribe({
        groupId: 'settle',
        topics: ['fills'],
        batchHandler: (ms) => void seen.push(...ms.map((m) => `settle ${m.offset}`)),
      });
      const batches: number[] = [];
      await bus.subscribe({
        groupId: 'history',
        topics: ['orders'],
        background: true,
        batchHandler: (ms) => {
          batches.push(ms.length);
          seen.push(`history ${ms.map((m) => m.offset).join(',')}`);
        },
      });
      await Promise.all([0, 1, 2].map((i) => bus.publish('orders', 'k', { i })));
      const until = Date.now() + 2_000;
      while (!seen.some((s) => s.startsWith('history')) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 1));
      expect(seen).toEqual([
        'risk 0',
        'risk 1',
        'risk 2',
        'settle 0',
        'settle 1',
        'settle 2',
        'history 0,1,2',
      ]);
      expect(batches).toEqual([3]);
      await bus.close();
    });
  }

  it('take their turn after the longest delay while the foreground stays busy', async () => {
    const bus = new MemoryBus({ topics: { t: 1 }, logger: silentLogger, backgroundMaxDelayMs: 30 });
    await bus.connect();
    let release!: () => void;
    await bus.subscribe({
      groupId: 'slow',
      topics: ['t'],
      handler: () => new Promise<void>((resolve) => (release = resolve)), // in flight until released
    });
    const got: string[] = [];
    await bus.subscribe({
      groupId: 'feed',
      topics: ['t'],
      background: true,
      handler: (m) => void got.push(m.offset),
    });
    await bus.publish('t', 'k', 1);
    await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual(['0']);
    release();
    await bus.close();
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
      const inProcess: (boolean | undefined)[] = [];
      await bus.subscribe({
        groupId: 'g',
        topics: ['t'],
        handler: (m) => {
          got.push(m.value);
          inProcess.push(m.inProcess);
        },
      });
      const value = { at: new Date(0), n: 1 };
      await bus.publish('t', 'k', value);
      await new Promise((r) => setImmediate(r));
      if (clone) expect(got).toEqual([{ at: '1970-01-01T00:00:00.000Z', n: 1 }]);
      else expect(got[0]).toBe(value);
      // Known as built in this process only when handed over as is (the value itself unchanged).
      expect(inProcess).toEqual([!clone]);
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

  it('forgets a group once its last member left, unless it committed offsets', async () => {
    const bus = await open();
    await bus.publish('t', 'k', 1);
    // One short-lived reader per group, as the gateway's user-stream replays subscribe.
    for (let i = 0; i < 200; i++) {
      const sub = await bus.subscribe({ groupId: `replay.${i}`, topics: ['t'], handler: () => {} });
      await sub.close();
    }
    expect(bus.groupCount).toBe(0);
    const kept = await bus.subscribe({ groupId: 'kept', topics: ['t'], handler: () => {} });
    await kept.commit({ topic: 't', partition: 0, offset: '1' });
    await kept.close();
    expect(bus.groupCount).toBe(1);
    // Its members resume from the committed offset, as before.
    const again = await bus.subscribe({ groupId: 'kept', topics: ['t'], handler: () => {} });
    expect(again.committedAtAssignment({ topic: 't', partition: 0 })).toBe('1');
    await bus.close();
  });

  it('refuses to publish once closed', async () => {
    const bus = await open();
    await bus.close();
    await expect(bus.publish('t', 'k', {})).rejects.toThrow('the bus is not connected');
    expect(bus.isConnected()).toBe(false);
  });
});
