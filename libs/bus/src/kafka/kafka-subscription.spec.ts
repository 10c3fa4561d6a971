import { type KafkaMock, startKafkaMock, failOnOpenKafkaClients } from '@perp/testing';
import { afterBatch, type BusLogger, type BusMessage, type Subscription } from '../bus';
import { silentLogger } from '../logger';
import Broker from 'kafkajs/src/broker';
import { KafkaBus, type KafkaConsumerTuning } from './kafka-bus';
import { createKafka } from './kafka-client';

failOnOpenKafkaClients();

const logger: BusLogger = process.env.BUS_DEBUG
  ? { log: console.log, warn: console.warn, error: console.error, debug: console.debug }
  : silentLogger;

// One broker: one fetcher, so both partitions' batches come in one fetch, in partition order.
let mock: KafkaMock;

beforeAll(async () => {
  mock = await startKafkaMock({ brokers: 1 });
});

afterAll(async () => {
  await mock?.stop();
});

/** A bus on the file's mock with short group timings. */
const busOn = (clientId: string, topics: Record<string, number>, tuning: KafkaConsumerTuning) =>
  new KafkaBus({
    brokers: mock.brokers,
    clientId,
    topics,
    logger,
    consumer: { sessionTimeoutMs: 2_500, heartbeatIntervalMs: 250, rebalanceTimeoutMs: 3_000, ...tuning },
  });

describe('KafkaSubscription: seeks and batches already fetched', () => {
  const openBus = (clientId: string, topic: string, partitions: number) =>
    busOn(clientId, { [topic]: partitions }, { maxWaitTimeMs: 50 });

  it('a batch fetched before a seek back is not delivered: a shard restoring a snapshot replays from it, with no gap', async () => {
    const suffix = Date.now().toString(36);
    const topic = `seek-gap-${suffix}`;
    const groupId = `seek-gap-group-${suffix}`;
    const kafka = createKafka({ brokers: mock.brokers, clientId: 'seek-gap', logger });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    const bus = openBus('seek-gap', topic, 2);
    let sub: Subscription | undefined;
    try {
      const send = (partition: number, from: number, to: number) =>
        producer.send({
          topic,
          messages: Array.from({ length: to - from }, (_, i) => ({
            partition,
            value: JSON.stringify({ n: from + i }),
          })),
        });
      await bus.connect();
      // A previous owner applied and committed both partitions up to 5; its last snapshots are at 1.
      await send(0, 0, 5);
      await send(1, 0, 5);
      const committed = new Set<number>();
      let previousDone = () => {};
      const previousFinished = new Promise<void>((r) => (previousDone = r));
      const previous: Subscription = await bus.subscribe({
        groupId,
        topics: [topic],
        batchHandler: async (ms) => {
          const last = ms[ms.length - 1]!;
          await previous.commit(afterBatch(ms));
          if (last.offset === '4') committed.add(last.partition);
          if (committed.size === 2) previousDone();
        },
      });
      await previousFinished;
      await previous.close();
      await send(0, 5, 10);
      await send(1, 5, 10);

      // The new owner's first turn (partition A) holds the only worker while the batch of the other
      // partition (B), fetched with it from the commit, waits behind it; B is restored meanwhile
      // (seek back to its snapshot), as onAssigned does for a partition gained in a rebalance.
      const delivered = new Map<number, number[]>();
      let first: number | undefined;
      let done = () => {};
      const finished = new Promise<void>((r) => (done = r));
      sub = await bus.subscribe<{ n: number }>({
        groupId,
        topics: [topic],
        batchHandler: async (ms: readonly BusMessage<{ n: number }>[]) => {
          const partition = ms[0]!.partition;
          if (first === undefined) {
            first = partition;
            sub!.seek({ topic, partition: 1 - partition, offset: '2' });
          }
          delivered.set(partition, [...(delivered.get(partition) ?? []), ...ms.map((m) => Number(m.offset))]);
          await sub!.commit(afterBatch(ms));
          if (delivered.get(0)?.includes(9) && delivered.get(1)?.includes(9)) done();
        },
        onAssigned: (_tps, s) => void (sub = s),
      });
      await finished;
      expect(delivered.get(first!)).toEqual([5, 6, 7, 8, 9]);
      // Before the fix: [5, 6, 7, 8, 9], the batch fetched from the commit went through after the
      // seek, and 2..4 were never delivered (a risk partition restored at 1 missed three inputs).
      expect(delivered.get(1 - first!)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await sub?.close();
      await bus.close();
      await producer.disconnect();
    }
  }, 60_000);

  it('a turn that fails after its partition was revoked is not retried here: the partition is neither paused nor sought', async () => {
    const suffix = Date.now().toString(36);
    const topic = `revoked-failure-${suffix}`;
    const bus = openBus('revoked-failure', topic, 1);
    await bus.connect();
    let sub: Subscription | undefined;
    try {
      const assigned: number[] = [];
      const revoked: number[] = [];
      let failed = () => {};
      const turnFailed = new Promise<void>((r) => (failed = r));
      sub = await bus.subscribe({
        groupId: `revoked-failure-group-${suffix}`,
        topics: [topic],
        batchHandler: async () => {
          // The rebalance revokes the partition while its turn runs; the turn then fails (the
          // engine's turn finds its partition gone).
          const internal = sub as unknown as {
            applyAssignment(next: Set<string>, first: boolean): Promise<void>;
          };
          await internal.applyAssignment(new Set(), false);
          setImmediate(failed);
          throw new Error('partition revoked during the turn');
        },
        onAssigned: (tps, s) => {
          sub = s;
          assigned.push(...tps.map((t) => t.partition));
        },
        onRevoked: (tps) => void revoked.push(...tps.map((t) => t.partition)),
      });
      await bus.publish(topic, 'k', { n: 1 });
      await turnFailed;
      // The mock may hold more partitions than configured: all of them revoked.
      expect(revoked).toEqual(assigned);
      // Before the fix the failure paused the partition, then seek threw "not assigned" out of the
      // batch handler (kafkajs restarted the consumer: one more rebalance).
      const consumer = (sub as unknown as { consumer: { paused(): unknown[] } }).consumer;
      expect(consumer.paused()).toEqual([]);
    } finally {
      await sub?.close();
      await bus.close();
    }
  }, 60_000);
});

describe('KafkaSubscription: commitLater paced by commitIntervalMs', () => {
  /** A one-partition topic, its group, a subscription whose handler commits as each message says. */
  async function pacedMember(name: string, commitIntervalMs: number) {
    const suffix = Date.now().toString(36);
    const topic = `${name}-${suffix}`;
    const groupId = `${name}-group-${suffix}`;
    const kafka = createKafka({ brokers: mock.brokers, clientId: name, logger });
    const admin = kafka.admin();
    await admin.connect();
    const bus = busOn(name, { [topic]: 1 }, { maxWaitTimeMs: 20, commitIntervalMs });
    await bus.connect();
    let handled = -1;
    let requests = 0;
    const sub = await bus.subscribe<{ n: number; awaited?: boolean }>({
      groupId,
      topics: [topic],
      batchHandler: async (ms, member) => {
        const last = ms[ms.length - 1]!;
        if (last.value.awaited) await member.commit(afterBatch(ms));
        else member.commitLater(afterBatch(ms));
        handled = last.value.n;
      },
    });
    // Counts the commit requests the member sends.
    const consumer = (sub as unknown as { consumer: { commitOffsets(o: unknown): Promise<void> } }).consumer;
    const commitOffsets = consumer.commitOffsets.bind(consumer);
    consumer.commitOffsets = (o) => {
      requests++;
      return commitOffsets(o);
    };
    const committed = async () => {
      const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return Number(t!.partitions[0]!.offset);
    };
    const until = async (what: () => Promise<boolean> | boolean, ms = 10_000) => {
      for (const end = Date.now() + ms; !(await what());) {
        if (Date.now() > end) throw new Error(`not within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const send = async (n: number, awaited = false) => {
      await bus.publish(topic, 'k', { n, awaited });
      await until(() => handled === n);
    };
    const close = async () => {
      await sub.close();
      await bus.close();
      await admin.disconnect();
    };
    return { send, committed, until, requests: () => requests, close, sub };
  }

  it('a busy member commits once per interval; commit() and close send what is queued at once', async () => {
    const m = await pacedMember('paced-commits', 60_000);
    try {
      await m.send(0);
      // The member's first position goes at once.
      await m.until(async () => (await m.committed()) === 1);
      await m.send(1);
      await m.send(2);
      await new Promise((r) => setTimeout(r, 500));
      // Within the interval: queued, not sent (before: one request per turn, committed 3).
      expect(await m.committed()).toBe(1);
      expect(m.requests()).toBe(1);
      // A caller waiting on commit() does not wait for the interval, and takes the queued ones along.
      await m.send(3, true);
      expect(await m.committed()).toBe(4);
      expect(m.requests()).toBe(2);
      await m.send(4);
      await m.sub.close();
      // close() hands over what was queued.
      expect(await m.committed()).toBe(5);
      expect(m.requests()).toBe(3);
    } finally {
      await m.close();
    }
  }, 60_000);

  it('queued positions go when the interval has passed, with nothing else to send them', async () => {
    const m = await pacedMember('paced-timer', 2_000);
    try {
      for (let n = 0; n < 12; n++) await m.send(n);
      await m.until(async () => (await m.committed()) === 12);
      // Twelve turns, a few requests: the first at once, then at most one per 2 s.
      expect(m.requests()).toBeLessThan(12);
      expect(m.requests()).toBeGreaterThanOrEqual(2);
    } finally {
      await m.close();
    }
  }, 60_000);
});

describe('minFetchWaitMs: the readers of rarely written topics fetch less often', () => {
  it('a group member and a reader without a group ask each fetch to wait at least that long', async () => {
    const suffix = Date.now().toString(36);
    const topics = { rare: `rare-${suffix}`, busy: `busy-${suffix}`, read: `rare-read-${suffix}` };
    const bus = busOn(
      'rare-topics',
      { [topics.rare]: 1, [topics.busy]: 1, [topics.read]: 1 },
      { maxWaitTimeMs: 20 },
    );
    // The wait each fetch asked for, by topic (the adapter's own wrapper sits beneath this one).
    const waits = new Map<string, number[]>();
    const fetch = Broker.prototype.fetch;
    Broker.prototype.fetch = function (this: Broker, request: Broker.FetchRequest) {
      for (const t of request.topics)
        waits.set(t.topic, [...(waits.get(t.topic) ?? []), request.maxWaitTime ?? -1]);
      return fetch.call(this, request);
    };
    const subs: Subscription[] = [];
    try {
      await bus.connect();
      const got: string[] = [];
      const handler = (m: BusMessage) => void got.push(m.topic);
      subs.push(
        await bus.subscribe({
          groupId: `rare-${suffix}`,
          topics: [topics.rare],
          handler,
          minFetchWaitMs: 600,
        }),
        await bus.subscribe({ groupId: `busy-${suffix}`, topics: [topics.busy], handler }),
        await bus.subscribe({
          groupId: 'rare-reader',
          topics: [topics.read],
          assign: 'all',
          handler,
          minFetchWaitMs: 600,
        }),
      );
      await new Promise((r) => setTimeout(r, 1_500));
      for (const topic of Object.values(topics)) await bus.publish(topic, 'k', { at: Date.now() });
      const until = Date.now() + 10_000;
      while (got.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      // Still delivered, each one.
      expect(got.sort()).toEqual(Object.values(topics).sort());
      const rare = waits.get(topics.rare) ?? [];
      const read = waits.get(topics.read) ?? [];
      const busy = waits.get(topics.busy) ?? [];
      expect(Math.min(...rare)).toBeGreaterThanOrEqual(600);
      expect(Math.min(...read)).toBeGreaterThanOrEqual(600);
      // The bus's own wait elsewhere, so the busy one fetched many times as often.
      expect(busy).toContain(20);
      expect(busy.length).toBeGreaterThan(3 * Math.max(rare.length, read.length));
    } finally {
      Broker.prototype.fetch = fetch;
      for (const s of subs) await s.close();
      await bus.close();
    }
  }, 60_000);
});
