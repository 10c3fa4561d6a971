import { eventually } from '@perp/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BusMessage } from '../bus';
import { silentLogger } from '../logger';
import { Journal } from './journal';
import { journalDirs, readAll } from './__fixtures__/journal-dirs';
import { MemoryBus } from './memory-bus';

describe('MemoryBus retention: the newest messages in memory, older ones read back from the journal', () => {
  const dirs = journalDirs('bus-retention-');
  const open = (retain: number, journal = true) =>
    dirs.open({
      topics: { t: 2, other: 1 },
      logger: silentLogger,
      retain,
      journal: journal ? { dir: dirs.dir, fsync: 'never' } : undefined,
    });
  const held = (bus: MemoryBus) => bus.partitionLog('t', 0).messages.length;
  // Key 'a' goes to one partition of t; 'other' interleaves lines of another topic in the journal.
  const partitionOfA = (bus: MemoryBus) => bus.partitionFor('t', 'a');
  const publishMany = async (bus: MemoryBus, from: number, to: number) => {
    for (let i = from; i < to; i++) {
      await Promise.all([
        bus.publish('t', 'a', { i }, { n: String(i) }),
        bus.publish('other', 'x', { noise: i }),
      ]);
    }
  };
  const readT = (bus: MemoryBus, groupId: string, count: number) => readAll(bus, groupId, 't', count);
  const expectInOrder = (got: BusMessage<{ i: number }>[], from: number, to: number, p: number) => {
    expect(got.map((m) => m.value.i)).toEqual(Array.from({ length: to - from }, (_, k) => from + k));
    expect(got.map((m) => m.offset)).toEqual(Array.from({ length: to - from }, (_, k) => String(from + k)));
    for (const m of got) {
      expect(m).toMatchObject({ topic: 't', partition: p, key: 'a', headers: { n: String(m.value.i) } });
    }
  };

  it('holds at most about twice `retain` in memory, and a new group reads everything from offset 0', async () => {
    const bus = await open(10);
    await publishMany(bus, 0, 100);
    const p = partitionOfA(bus);
    const log = bus.partitionLog('t', p);
    expect(log.messages.length).toBeLessThan(20);
    expect(log.base).toBeGreaterThan(80);
    const got = await readT(bus, 'late', 100);
    expectInOrder(got, 0, 100, p);
    await bus.close();
  });

  it('a consumer that seeks back below what memory holds gets the journal, then memory, in order', async () => {
    const bus = await open(10);
    const got: BusMessage<{ i: number }>[] = [];
    const sub = await bus.subscribe<{ i: number }>({
      groupId: 'g',
      topics: ['t'],
      batchHandler: (ms) => void got.push(...ms),
    });
    await publishMany(bus, 0, 60);
    await eventually(() => got.length === 60);
    const p = partitionOfA(bus);
    got.length = 0;
    sub.seek({ topic: 't', partition: p, offset: '3' });
    await eventually(() => got.length === 57);
    expectInOrder(got, 3, 60, p);
    // Live messages after the replay still arrive once each.
    await publishMany(bus, 60, 70);
    await eventually(() => got.length === 67);
    expectInOrder(got, 3, 70, p);
    await sub.close();
    await bus.close();
  });

  it('after a restart holds the newest in memory and reads the rest back; commits resume where they were', async () => {
    let bus = await open(10);
    const first: number[] = [];
    let sub = await bus.subscribe<{ i: number }>({
      groupId: 'g',
      topics: ['t'],
      batchHandler: async (ms) => {
        for (const m of ms) first.push(m.value.i);
        await sub.commit(
          ms.map((m) => ({ topic: m.topic, partition: m.partition, offset: String(Number(m.offset) + 1) })),
        );
      },
    });
    await publishMany(bus, 0, 40);
    await eventually(() => first.length === 40);
    await sub.close();
    await bus.close();

    bus = await open(10);
    const p = partitionOfA(bus);
    expect(bus.partitionLog('t', p).messages.length).toBeLessThan(20);
    expect((await bus.endOffsets('t')).find((e) => e.partition === p)!.offset).toBe('40');
    const resumed: number[] = [];
    sub = await bus.subscribe<{ i: number }>({
      groupId: 'g',
      topics: ['t'],
      batchHandler: (ms) => void resumed.push(...ms.map((m) => m.value.i)),
    });
    await publishMany(bus, 40, 45);
    await eventually(() => resumed.length === 5);
    expect(resumed).toEqual([40, 41, 42, 43, 44]);
    await sub.close();
    expectInOrder(await readT(bus, 'late', 45), 0, 45, p);
    await bus.close();
  });

  it('drops what every reader of a partition has read, keeps what the slowest has not, and a seek back still gets it all', async () => {
    const bus = await open(5_000);
    const p = partitionOfA(bus);
    const log = bus.partitionLog('t', p);
    const fast: number[] = [];
    const slow: number[] = [];
    let release: () => void = () => undefined;
    let held = new Promise<void>((resolve) => (release = resolve));
    await bus.subscribe<{ i: number }>({
      groupId: 'fast',
      topics: ['t'],
      batchHandler: (ms) => void fast.push(...ms.map((m) => m.value.i)),
    });
    const slowSub = await bus.subscribe<{ i: number }>({
      groupId: 'slow',
      topics: ['t'],
      batchHandler: async (ms) => {
        await held; // the slow group stays on its first batch
        slow.push(...ms.map((m) => m.value.i));
      },
      maxBatch: 1,
    });
    await publishMany(bus, 0, 200);
    await eventually(() => fast.length === 200);
    // The slow reader has not passed offset 0: nothing of its partition may go.
    expect(log.base).toBe(0);
    expect(log.messages.length).toBe(200);
    release();
    await eventually(() => slow.length === 200);
    held = Promise.resolve();
    await publishMany(bus, 200, 264);
    await eventually(() => fast.length === 264 && slow.length === 264);
    // Both passed everything: what they read is dropped, well below `retain`.
    expect(log.base).toBeGreaterThan(200);
    expect(log.messages.length).toBeLessThan(64);
    slowSub.seek({ topic: 't', partition: p, offset: '0' });
    await eventually(() => slow.length === 528);
    expect(slow.slice(264)).toEqual(Array.from({ length: 264 }, (_, k) => k));
    await slowSub.close();
    await bus.close();
  });

  it('keeps only the last few replies: they reach requesters through a tap and are not journaled', async () => {
    const bus = await dirs.open({
      topics: { t: 1, replies: 1 },
      logger: silentLogger,
      retain: 5_000,
      replyTopic: 'replies',
      journal: { dir: dirs.dir, fsync: 'never' },
    });
    for (let i = 0; i < 300; i++) await bus.publish('replies', 'r', { i });
    const log = bus.partitionLog('replies', 0);
    expect(log.messages.length).toBeLessThanOrEqual(128);
    expect(log.messages.at(-1)!.value).toEqual({ i: 299 });
    await bus.close();
  });

  it('keeps every message in memory without a journal (nothing to read them back from)', async () => {
    const bus = await open(10, false);
    await publishMany(bus, 0, 100);
    expect(bus.partitionLog('t', partitionOfA(bus)).messages.length).toBe(100);
    expect(held(bus) + bus.partitionLog('t', 1 - partitionOfA(bus)).messages.length).toBe(100);
    await bus.close();
  });
});

describe('Journal positions and reading back', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'journal-read-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const append = (j: Journal, line: string) =>
    new Promise<void>((resolve, reject) => j.append(line, (e) => (e ? reject(e) : resolve())));

  it('reads the records written from a batch position on, stops when told, and never a queued one', async () => {
    const j = Journal.open({ dir, fsync: 'never' }, silentLogger, () => undefined);
    try {
      expect(j.position).toBe(0);
      await Promise.all([append(j, '["c","g","t",0,1]'), append(j, '["c","g","t",0,2]')]);
      const second = j.position;
      expect(second).toBeGreaterThan(0);
      await append(j, '["c","g","t",0,3]');
      const queued = append(j, '["c","g","t",0,4]'); // not flushed until the next turn
      const offsets = (from: number, stopAt = Infinity) => {
        const seen: number[] = [];
        j.readFrom(from, (r) => {
          seen.push(r[4] as number);
          return (r[4] as number) < stopAt;
        });
        return seen;
      };
      expect(offsets(0)).toEqual([1, 2, 3]);
      expect(offsets(second)).toEqual([3]);
      expect(offsets(0, 2)).toEqual([1, 2]);
      await queued;
      expect(offsets(second)).toEqual([3, 4]);
    } finally {
      j.close();
    }
  });

  it("reads back only the named partition's messages, leaving the other lines unparsed", async () => {
    const j = Journal.open({ dir, fsync: 'never' }, silentLogger, () => undefined);
    try {
      await Promise.all(
        [
          '["m","t",1,0,"k",{"i":0},0,5]',
          '["m","t",10,0,"k",{"i":100},0,5]', // partition 10 is not partition 1
          '["m","tt",1,0,"k",{"i":200},0,5]', // nor is topic tt topic t
          '["c","g","t",1,1]',
          '["m","t",2,0,"k",{not json', // never parsed: another partition's line
          '["m","t",1,1,"k",{"i":1},{"h":"1"},6]',
        ].map((l) => append(j, l)),
      );
      const seen: unknown[] = [];
      j.readFrom(
        0,
        (r) => {
          seen.push(r);
          return true;
        },
        { topic: 't', partition: 1 },
      );
      expect(seen).toEqual([
        ['m', 't', 1, 0, 'k', { i: 0 }, 0, 5],
        ['m', 't', 1, 1, 'k', { i: 1 }, { h: '1' }, 6],
      ]);
      // Without a partition named, every line is parsed (and the broken one throws).
      expect(() => j.readFrom(0, () => true)).toThrow(SyntaxError);
    } finally {
      j.close();
    }
  });

  it('gives every replayed record the position of its line', () => {
    const first = Journal.open({ dir, fsync: 'never' }, silentLogger, () => undefined);
    const lines = ['["c","g","t",0,1]', '["c","g","t",0,22]', '["c","g","t",0,333]'];
    return Promise.all(lines.map((l) => append(first, l))).then(() => {
      first.close();
      const positions: number[] = [];
      const reopened = Journal.open({ dir, fsync: 'never' }, silentLogger, (_r, position) =>
        positions.push(position),
      );
      reopened.close();
      expect(positions).toEqual([0, lines[0]!.length + 1, lines[0]!.length + lines[1]!.length + 2]);
    });
  });
});
