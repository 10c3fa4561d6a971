// Why this module is long: it is the one behaviour contract every Bus adapter must pass; split, the contract would be in several places.
import { randomUUID } from 'node:crypto';
import {
  afterBatch,
  type Bus,
  type BusMessage,
  BusTimeoutError,
  HEADER_CORRELATION_ID,
  nextOffset,
  type PublishResult,
  type Subscription,
  type TopicPartition,
  UnknownTopicError,
} from '../bus';
import { partitionOf } from '../partitioner';
import { readerConformance } from './reader-conformance';

export interface ConformanceTarget {
  /** A connected bus over exactly these topics (fresh names each call); called inside tests only. */
  open(topics: Record<string, number>, replyTopic?: string): Promise<Bus>;
  /** Per-test timeout; the Kafka adapter needs group rebalances. */
  testTimeoutMs: number;
  /** How long `eventually` waits for a condition. */
  settleMs: number;
}

const PARTITIONS = 4;

/**
 * The behaviour every Bus adapter must show, as one Jest suite: call it inside a describe block of
 * the adapter's spec with a factory. Each test works on its own topics and groups.
 */
export function busConformance(t: ConformanceTarget): void {
  const open: Bus[] = [];
  const run = randomUUID().slice(0, 8);
  let n = 0;

  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
  });

  /** A bus with fresh topics; `names` are returned as the real topic names. */
  async function setup<K extends string>(...names: K[]): Promise<{ bus: Bus; topic: Record<K, string> }> {
    const id = `${run}-${++n}`;
    const topic = Object.fromEntries(names.map((k) => [k, `conf-${id}-${k}`])) as Record<K, string>;
    const topics = Object.fromEntries(Object.values<string>(topic).map((name) => [name, PARTITIONS]));
    const replyTopic = `conf-${id}-replies`;
    const bus = await t.open({ ...topics, [replyTopic]: PARTITIONS }, replyTopic);
    open.push(bus);
    return { bus, topic };
  }

  const group = () => `group-${run}-${++n}`;

  async function eventually(what: string, condition: () => boolean): Promise<void> {
    const deadline = Date.now() + t.settleMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const sortTps = (tps: TopicPartition[]) =>
    [...tps].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);

  /** Both members own something, nothing twice, and together everything. */
  function split(a: Subscription, b: Subscription, topic: string): boolean {
    const pa = a.assignment().map((tp) => tp.partition);
    const pb = b.assignment().map((tp) => tp.partition);
    const all = [...pa, ...pb].sort();
    return (
      pa.length > 0 &&
      pb.length > 0 &&
      a.assignment().every((tp) => tp.topic === topic) &&
      all.join() === Array.from({ length: PARTITIONS }, (_, i) => i).join()
    );
  }

  const timeout = () => t.testTimeoutMs;

  describe('readers without a group', () =>
    readerConformance({ setup, group, eventually, timeoutMs: t.testTimeoutMs, partitions: PARTITIONS }));

  it(
    'places a key by murmur2, keeps per-key order and delivers every field',
    async () => {
      const { bus, topic } = await setup('orders');
      const keys = Array.from({ length: 8 }, (_, i) => `user-${i}`);
      const sends = [];
      for (let seq = 0; seq < 25; seq++) {
        for (const key of keys)
          sends.push(bus.publish(topic.orders, key, { key, seq }, { h: `${key}:${seq}` }));
      }
      const results = await Promise.all(sends);
      for (const [i, r] of results.entries()) {
        const key = keys[i % keys.length]!;
        expect(r.topic).toBe(topic.orders);
        expect(r.partition).toBe(partitionOf(key, PARTITIONS));
        expect(r.partition).toBe(bus.partitionFor(topic.orders, key));
      }
      const ends = await bus.endOffsets(topic.orders);
      expect(ends.map((e) => e.partition)).toEqual([0, 1, 2, 3]);
      for (const e of ends) {
        const last = results.filter((r) => r.partition === e.partition).map((r) => BigInt(r.offset));
        expect(BigInt(e.offset)).toBe(last.length ? last.reduce((a, b) => (a > b ? a : b)) + 1n : 0n);
      }
      // Publish order is log order within a partition.
      const offsets = new Map<number, bigint>();
      for (const r of results) {
        const prev = offsets.get(r.partition);
        if (prev !== undefined) expect(BigInt(r.offset)).toBeGreaterThan(prev);
        offsets.set(r.partition, BigInt(r.offset));
      }

      const got: BusMessage<{ key: string; seq: number }>[] = [];
      await bus.subscribe<{ key: string; seq: number }>({
        groupId: group(),
        topics: [topic.orders],
        handler: (m) => void got.push(m),
      });
      await eventually('all 200 messages', () => got.length >= results.length);
      expect(got).toHaveLength(results.length);
      for (const key of keys) {
        const seqs = got.filter((m) => m.key === key).map((m) => m.value.seq);
        expect(seqs).toEqual(Array.from({ length: 25 }, (_, i) => i));
      }
      const first = got.find((m) => m.key === 'user-3' && m.value.seq === 7)!;
      const published = results[7 * keys.length + 3]!;
      expect(first).toMatchObject({
        topic: topic.orders,
        partition: published.partition,
        offset: published.offset,
        key: 'user-3',
        value: { key: 'user-3', seq: 7 },
        headers: { h: 'user-3:7' },
      });
      expect(typeof first.timestamp).toBe('number');
      expect(Math.abs(first.timestamp - Date.now())).toBeLessThan(60_000);
    },
    timeout(),
  );

  it(
    'refuses a topic that is not configured',
    async () => {
      const { bus } = await setup('known');
      await expect(bus.publish('no-such-topic', 'k', {})).rejects.toBeInstanceOf(UnknownTopicError);
    },
    timeout(),
  );

  it(
    'delivers every message to exactly one member of a group, and to every group',
    async () => {
      const { bus, topic } = await setup('events');
      const g = group();
      const seen: Record<string, BusMessage[]> = { a: [], b: [], other: [] };
      const sub = (name: string, groupId: string) =>
        bus.subscribe({ groupId, topics: [topic.events], handler: (m) => void seen[name]!.push(m) });
      const [a, b] = await Promise.all([sub('a', g), sub('b', g), sub('other', group())]);
      await eventually('the two members split the partitions', () => split(a!, b!, topic.events));

      const results = await Promise.all(
        Array.from({ length: 120 }, (_, i) => bus.publish(topic.events, `k${i}`, { i })),
      );
      await eventually('120 messages in the group', () => seen.a!.length + seen.b!.length >= 120);
      await eventually('120 messages in the other group', () => seen.other!.length >= 120);

      const ids = (ms: BusMessage[]) => ms.map((m) => `${m.partition}@${m.offset}`);
      const group1 = [...ids(seen.a!), ...ids(seen.b!)].sort();
      const expected = results.map((r) => `${r.partition}@${r.offset}`).sort();
      expect(group1).toEqual(expected);
      expect(ids(seen.other!).sort()).toEqual(expected);
      const owned = (s: Subscription) => new Set(s.assignment().map((tp) => tp.partition));
      expect(seen.a!.every((m) => owned(a!).has(m.partition))).toBe(true);
      expect(seen.b!.every((m) => owned(b!).has(m.partition))).toBe(true);
    },
    timeout(),
  );

  it(
    'splits partitions between two members and hands a leaving member’s partitions to the other',
    async () => {
      const { bus, topic } = await setup('shards');
      const g = group();
      const log: string[] = [];
      const got = { a: [] as BusMessage<{ batch: number }>[], b: [] as BusMessage<{ batch: number }>[] };
      const member = (name: 'a' | 'b'): Promise<Subscription> => {
        let self: Subscription | undefined;
        const pending: BusMessage<{ batch: number }>[] = [];
        return bus
          .subscribe<{ batch: number }>({
            groupId: g,
            topics: [topic.shards],
            handler: async (m) => {
              got[name].push(m);
              pending.push(m);
              // Commit as we go, so the next owner resumes after what was handled.
              if (self)
                for (const p of pending.splice(0)) await self.commit({ ...p, offset: nextOffset(p.offset) });
            },
            onAssigned: (tps) => void log.push(`${name}+${sortTps(tps).map((tp) => tp.partition)}`),
            onRevoked: (tps) => void log.push(`${name}-${sortTps(tps).map((tp) => tp.partition)}`),
          })
          .then((s) => (self = s));
      };
      const [a, b] = await Promise.all([member('a'), member('b')]);
      await eventually('the two members split the partitions', () => split(a, b, topic.shards));
      const bPartitions = b.assignment().map((tp) => tp.partition);

      const batch = (no: number) =>
        Promise.all(
          Array.from({ length: 40 }, (_, i) => bus.publish(topic.shards, `key-${i}`, { batch: no })),
        );
      await batch(1);
      await eventually('batch 1 handled', () => got.a.length + got.b.length >= 40);
      expect(got.b.length).toBeGreaterThan(0);

      await b.close();
      expect(log).toContain(`b-${[...bPartitions].sort()}`);
      await eventually('a owns every partition', () => a.assignment().length === PARTITIONS);
      expect(b.assignment()).toEqual([]);

      await batch(2);
      await eventually('batch 2 handled by a', () => got.a.filter((m) => m.value.batch === 2).length >= 40);
      const second = got.a.filter((m) => m.value.batch === 2);
      expect(new Set(second.map((m) => m.partition))).toEqual(new Set([0, 1, 2, 3]));
      // b committed what it handled, so a did not see b's batch-1 messages again.
      expect(got.a.filter((m) => m.value.batch === 1 && bPartitions.includes(m.partition))).toEqual([]);
      expect(got.b.filter((m) => m.value.batch === 2)).toEqual([]);
      expect(log.some((l) => l.startsWith('a+') && bPartitions.every((p) => l.includes(String(p))))).toBe(
        true,
      );
    },
    timeout(),
  );

  it(
    'starts a new member at the group’s committed offset',
    async () => {
      const { bus, topic } = await setup('ledger');
      const g = group();
      const results: PublishResult[] = [];
      for (let i = 0; i < 10; i++) results.push(await bus.publish(topic.ledger, 'same-key', { i }));
      const first: number[] = [];
      const s1 = await bus.subscribe<{ i: number }>({
        groupId: g,
        topics: [topic.ledger],
        handler: (m) => void first.push(m.value.i),
      });
      await eventually('10 messages', () => first.length >= 10);
      await s1.commit({ ...results[5]!, offset: results[6]!.offset });
      await s1.close();

      const second: number[] = [];
      const seenInOnAssigned: (string | undefined)[] = [];
      const s2 = await bus.subscribe<{ i: number }>({
        groupId: g,
        topics: [topic.ledger],
        handler: (m) => void second.push(m.value.i),
        onAssigned: (tps, sub) => {
          for (const tp of tps)
            if (tp.partition === results[0]!.partition) seenInOnAssigned.push(sub.committedAtAssignment(tp));
        },
      });
      await eventually('messages after the committed offset', () => second.length >= 4);
      expect(second).toEqual([6, 7, 8, 9]);
      // The commit as of the assignment, for replays from a snapshot (not the member's later commits).
      expect(seenInOnAssigned).toEqual([results[6]!.offset]);
      await s2.commit({ ...results[9]!, offset: nextOffset(results[9]!.offset) });
      expect(s2.committedAtAssignment(results[0]!)).toBe(results[6]!.offset);
      const other = (results[0]!.partition + 1) % PARTITIONS;
      expect(s2.committedAtAssignment({ topic: topic.ledger, partition: other })).toBeUndefined();
    },
    timeout(),
  );

  it(
    'commitLater: turns go on while positions travel; the last one queued is stored, close sends it',
    async () => {
      const { bus, topic } = await setup('later');
      const g = group();
      const seen: number[] = [];
      const member: { sub?: Subscription } = {};
      let unset = 0;
      let closing: Promise<void> | undefined;
      member.sub = await bus.subscribe<{ i: number }>({
        groupId: g,
        topics: [topic.later],
        maxBatch: 3,
        // Each turn queues its position and returns at once, many while a request travels.
        batchHandler: (ms) => {
          seen.push(...ms.map((m) => m.value.i));
          if (!member.sub) return void unset++;
          member.sub.commitLater(afterBatch(ms));
          // Leaves right after queuing its last position: close must send it.
          if (seen.length === 40) closing = member.sub.close();
        },
      });
      await Promise.all(Array.from({ length: 40 }, (_, i) => bus.publish(topic.later, `k${i % 8}`, { i })));
      await eventually('40 messages', () => seen.length >= 40);
      expect(unset).toBe(0);
      expect([...seen].sort((a, b) => a - b)).toEqual([...Array(40).keys()]);
      await closing;

      for (let i = 40; i < 44; i++) await bus.publish(topic.later, `k${i % 8}`, { i });
      const later: number[] = [];
      await bus.subscribe<{ i: number }>({
        groupId: g,
        topics: [topic.later],
        batchHandler: (ms) => void later.push(...ms.map((m) => m.value.i)),
      });
      await eventually('the four new messages', () => later.length >= 4);
      await new Promise((r) => setTimeout(r, 100));
      expect([...later].sort((a, b) => a - b)).toEqual([40, 41, 42, 43]);
    },
    timeout(),
  );

  it(
    'starts a never-committed group at the end with start: latest',
    async () => {
      const { bus, topic } = await setup('ticks');
      await bus.publish(topic.ticks, 'BTCUSDT', { old: true });
      const got: unknown[] = [];
      await bus.subscribe({
        groupId: group(),
        topics: [topic.ticks],
        start: 'latest',
        handler: (m) => void got.push(m.value),
      });
      await bus.publish(topic.ticks, 'BTCUSDT', { old: false });
      await eventually('the new message', () => got.length >= 1);
      expect(got).toEqual([{ old: false }]);
    },
    timeout(),
  );

  it(
    'replays the same messages after a seek, also from onAssigned (snapshot + replay)',
    async () => {
      const { bus, topic } = await setup('book');
      const published: PublishResult[] = [];
      for (let i = 0; i < 20; i++)
        published.push(await bus.publish(topic.book, 'ETHUSDT', { i }, { n: String(i) }));
      const p = published[0]!.partition;
      expect(published.every((r) => r.partition === p)).toBe(true);

      const got: BusMessage<{ i: number }>[] = [];
      const sub = await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.book],
        handler: (m) => void got.push(m),
      });
      await eventually('20 messages', () => got.length >= 20);
      sub.seek({ topic: topic.book, partition: p, offset: published[5]!.offset });
      await eventually('the replay', () => got.length >= 35);
      expect(got.slice(20)).toEqual(got.slice(5, 20));
      expect(got.map((m) => m.value.i)).toEqual([
        ...Array(20).keys(),
        ...Array.from({ length: 15 }, (_, i) => i + 5),
      ]);

      // A new owner restores a snapshot taken at offset 12 and replays from there.
      const replayed: number[] = [];
      await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.book],
        onAssigned: (tps, self) => {
          for (const tp of tps) if (tp.partition === p) self.seek({ ...tp, offset: published[12]!.offset });
        },
        handler: (m) => void replayed.push(m.value.i),
      });
      await eventually('the replay from the snapshot', () => replayed.length >= 8);
      expect(replayed).toEqual([12, 13, 14, 15, 16, 17, 18, 19]);
    },
    timeout(),
  );

  it(
    'delivers nothing of a partition before onAssigned returned, even after a seek inside it',
    async () => {
      const { bus, topic } = await setup('book');
      const published: PublishResult[] = [];
      for (let i = 0; i < 5; i++) published.push(await bus.publish(topic.book, 'SOLUSDT', { i }));
      const p = published[0]!.partition;
      const events: string[] = [];
      await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.book],
        onAssigned: async (tps, self) => {
          for (const tp of tps) if (tp.partition === p) self.seek({ ...tp, offset: published[2]!.offset });
          // Work after the seek (a projection writing what a hot store lost) comes first.
          await new Promise((resolve) => setTimeout(resolve, 50));
          events.push('assigned');
        },
        handler: (m) => void events.push(String(m.value.i)),
      });
      await eventually('the messages after the seek', () => events.length >= 4);
      expect(events).toEqual(['assigned', '2', '3', '4']);
    },
    timeout(),
  );

  it(
    'answers a request through the reply topic, matching correlation ids',
    async () => {
      const { bus, topic } = await setup('commands');
      // Requests may go out before the responder has joined: they wait in the log.
      const [, replies] = await Promise.all([
        bus.subscribe<{ n: number }>({
          groupId: group(),
          topics: [topic.commands],
          handler: async (m) => {
            await bus.reply(m, { doubled: m.value.n * 2 });
          },
        }),
        Promise.all(
          [1, 2, 3].map((n) =>
            bus.request<{ doubled: number }>(topic.commands, `user-${n}`, { n }, { timeoutMs: 20_000 }),
          ),
        ),
      ]);
      expect(replies.map((r) => r.value.doubled)).toEqual([2, 4, 6]);
      for (const r of replies) expect(r.headers[HEADER_CORRELATION_ID]).toEqual(expect.any(String));
      expect(new Set(replies.map((r) => r.headers[HEADER_CORRELATION_ID])).size).toBe(3);
    },
    timeout(),
  );

  it(
    'times a request out when nobody answers, saying it was published (its outcome unknown)',
    async () => {
      const { bus, topic } = await setup('void', 'echo');
      // A first answered request: the reply listener is up, so the next one goes out at once.
      await bus.subscribe({
        groupId: group(),
        topics: [topic.echo],
        handler: async (m) => {
          await bus.reply(m, {});
        },
      });
      await bus.request(topic.echo, 'k', {}, { timeoutMs: 20_000 });
      const e = await bus
        .request(topic.void, 'k', { ping: true }, { timeoutMs: 300 })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(BusTimeoutError);
      expect((e as BusTimeoutError).published).toBe(true);
    },
    timeout(),
  );

  it(
    'redelivers a message whose handler throws, without skipping or reordering',
    async () => {
      const { bus, topic } = await setup('fragile');
      for (let i = 0; i < 10; i++) await bus.publish(topic.fragile, 'one-key', { i });
      const attempts = new Map<number, number>();
      const handled: number[] = [];
      await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.fragile],
        handler: async (m) => {
          const i = m.value.i;
          attempts.set(i, (attempts.get(i) ?? 0) + 1);
          if (i === 3 && attempts.get(i)! <= 2) throw new Error('transient failure');
          if (i === 6 && attempts.get(i)! <= 1) return Promise.reject(new Error('async failure'));
          handled.push(i);
        },
      });
      await eventually('all 10 handled', () => handled.length >= 10);
      expect(handled).toEqual([...Array(10).keys()]);
      expect(attempts.get(3)).toBe(3);
      expect(attempts.get(6)).toBe(2);
      expect(attempts.get(4)).toBe(1);
    },
    timeout(),
  );

  it(
    'hands a batch handler every waiting message of a partition in order, at most maxBatch at once',
    async () => {
      const { bus, topic } = await setup('turns');
      // Published together: one journal write or one produce request (one record batch).
      const sent = await Promise.all(
        Array.from({ length: 30 }, (_, i) => bus.publish(topic.turns, 'one-key', { i })),
      );
      const batches: BusMessage<{ i: number }>[][] = [];
      const sub = await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.turns],
        maxBatch: 8,
        batchHandler: (ms) => void batches.push([...ms]),
      });
      await eventually('30 messages', () => batches.flat().length >= 30);
      await sub.commit(afterBatch(batches[batches.length - 1]!));
      expect(batches.flat().map((m) => m.value.i)).toEqual([...Array(30).keys()]);
      expect(batches.flat().map((m) => m.offset)).toEqual(sent.map((r) => r.offset));
      // Everything was waiting when the member joined: it came in a few full turns, not one by one.
      expect(batches.every((b) => b.length >= 1 && b.length <= 8)).toBe(true);
      expect(batches.length).toBeLessThan(30);
      for (const b of batches) expect(new Set(b.map((m) => m.partition)).size).toBe(1);

      // The next member of the group continues after the last committed batch.
      await sub.close();
      for (let i = 30; i < 33; i++) await bus.publish(topic.turns, 'one-key', { i });
      const later: number[] = [];
      await bus.subscribe<{ i: number }>({
        groupId: sub.groupId,
        topics: [topic.turns],
        batchHandler: (ms) => void later.push(...ms.map((m) => m.value.i)),
      });
      await eventually('the three new messages', () => later.length >= 3);
      expect(later).toEqual([30, 31, 32]);
    },
    timeout(),
  );

  it(
    "gives a batch handler its member's subscription: a turn commits through it, the first turns too",
    async () => {
      const { bus, topic } = await setup('ownturns');
      for (let i = 0; i < 5; i++) await bus.publish(topic.ownturns, 'one-key', { i });
      const given: Subscription[] = [];
      const seen: number[] = [];
      // The first turns may run before subscribe() resolves: only the handler's argument is at hand.
      const sub = await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.ownturns],
        batchHandler: (ms, member) => {
          given.push(member);
          seen.push(...ms.map((m) => m.value.i));
          member.commitLater(afterBatch(ms));
        },
      });
      await eventually('5 messages', () => seen.length >= 5);
      expect(seen).toEqual([0, 1, 2, 3, 4]);
      expect(given.every((member) => member === sub)).toBe(true);
      await sub.close();

      await bus.publish(topic.ownturns, 'one-key', { i: 5 });
      const later: number[] = [];
      await bus.subscribe<{ i: number }>({
        groupId: sub.groupId,
        topics: [topic.ownturns],
        batchHandler: (ms) => void later.push(...ms.map((m) => m.value.i)),
      });
      await eventually('the new message', () => later.length >= 1);
      expect(later).toEqual([5]);
    },
    timeout(),
  );

  it(
    'redelivers a whole batch whose handler throws, from its first message',
    async () => {
      const { bus, topic } = await setup('fragileturns');
      for (let i = 0; i < 12; i++) await bus.publish(topic.fragileturns, 'one-key', { i });
      let failures = 0;
      const seen: number[][] = [];
      const applied: number[] = [];
      await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.fragileturns],
        maxBatch: 5,
        batchHandler: async (ms) => {
          const values = ms.map((m) => m.value.i);
          seen.push(values);
          if (values.includes(7) && failures++ < 2) throw new Error('transient failure');
          applied.push(...values);
        },
      });
      await eventually('all 12 applied', () => applied.length >= 12);
      expect(applied).toEqual([...Array(12).keys()]);
      expect(failures).toBe(3);
      const failing = seen.filter((b) => b.includes(7));
      expect(failing).toHaveLength(3);
      // A retried batch starts where the failed one started.
      expect(new Set(failing.map((b) => b[0])).size).toBe(1);
    },
    timeout(),
  );

  it(
    'refuses a subscription with both or neither of handler and batchHandler',
    async () => {
      const { bus, topic } = await setup('either');
      await expect(bus.subscribe({ groupId: group(), topics: [topic.either] })).rejects.toThrow(
        /exactly one of handler and batchHandler/,
      );
      await expect(
        bus.subscribe({
          groupId: group(),
          topics: [topic.either],
          handler: () => {},
          batchHandler: () => {},
        }),
      ).rejects.toThrow(/exactly one/);
    },
    timeout(),
  );
}
