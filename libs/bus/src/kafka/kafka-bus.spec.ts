import { type KafkaMock, startKafkaMock, failOnOpenKafkaClients, trackKafkaClients } from '@perp/testing';
import { KafkaJSProtocolError, type Producer } from 'kafkajs';
import { BusClosedError, BusTimeoutError, type BusLogger, type Subscription } from '../bus';
import { silentLogger } from '../logger';
import { busConformance } from '../testing/bus-conformance';
import { KafkaBus, type KafkaBusOptions, type KafkaConsumerTuning } from './kafka-bus';
import { KafkaSubscription } from './kafka-subscription';

failOnOpenKafkaClients();

const logger: BusLogger = process.env.BUS_DEBUG
  ? { log: console.log, warn: console.warn, error: console.error, debug: console.debug }
  : silentLogger;

/** The mock's group coordinator waits session timeout - 1 s for members to rejoin: keep it short there. */
const MOCK_TUNING: KafkaConsumerTuning = {
  sessionTimeoutMs: 2_500,
  heartbeatIntervalMs: 250,
  rebalanceTimeoutMs: 3_000,
  maxWaitTimeMs: 50,
};
/** A real broker refuses sessions under group.min.session.timeout.ms (6 s by default). */
const BROKER_TUNING: KafkaConsumerTuning = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 6_000,
  maxWaitTimeMs: 100,
};

const targets: { name: string; brokers?: string[] }[] = [{ name: 'the librdkafka mock cluster (kcat)' }];
if (process.env.KAFKA_BROKERS) {
  targets.push({
    name: `the real broker ${process.env.KAFKA_BROKERS}`,
    brokers: process.env.KAFKA_BROKERS.split(','),
  });
}

describe.each(targets)('KafkaBus conformance on $name', ({ name, brokers: realBrokers }) => {
  let mock: KafkaMock | undefined;
  let brokers: string[];

  beforeAll(async () => {
    if (realBrokers) brokers = realBrokers;
    else brokers = (mock = await startKafkaMock()).brokers;
    console.log(`KafkaBus conformance runs on ${name} at ${brokers.join(',')}`);
  });

  afterAll(async () => {
    await mock?.stop();
  });

  busConformance({
    open: async (topics, replyTopic) => {
      const bus = new KafkaBus({
        brokers,
        clientId: 'bus-conformance',
        topics,
        replyTopic,
        logger,
        retry: { initialMs: 20, maxMs: 200 },
        consumer: realBrokers ? BROKER_TUNING : MOCK_TUNING,
      });
      await bus.connect();
      return bus;
    },
    testTimeoutMs: 40_000,
    settleMs: 25_000,
  });
});

describe('KafkaBus on the librdkafka mock cluster: slow produce, members kafkajs gave up on', () => {
  let mock: KafkaMock;

  beforeAll(async () => {
    mock = await startKafkaMock();
  });

  afterAll(async () => {
    await mock?.stop();
  });

  /** A bus on the mock named `name`, with its tuning, logger and `options` over them. */
  const mockBus = (
    name: string,
    options: Pick<KafkaBusOptions, 'topics'> &
      Partial<Omit<KafkaBusOptions, 'consumer'>> & { consumer?: Partial<KafkaConsumerTuning> },
  ) =>
    new KafkaBus({
      brokers: mock.brokers,
      clientId: name,
      logger,
      ...options,
      consumer: { ...MOCK_TUNING, ...options.consumer },
    });

  /** A bus with a fresh command topic and reply topic (`<name>-cmd-…`, `<name>-replies-…`) and an eager reply listener. */
  const requestBus = (name: string) => {
    const suffix = Date.now().toString(36);
    const cmd = `${name}-cmd-${suffix}`;
    const replies = `${name}-replies-${suffix}`;
    const bus = mockBus(name, {
      topics: { [cmd]: 1, [replies]: 1 },
      replyTopic: replies,
      eagerReplyListener: true,
    });
    return { suffix, cmd, bus };
  };

  /** A bus with one fresh topic `<name>-<suffix>` of `partitions` partitions. */
  const topicBus = (
    name: string,
    partitions = 1,
    options: { consumer?: Partial<KafkaConsumerTuning>; logger?: BusLogger } = {},
  ) => {
    const suffix = Date.now().toString(36);
    const topic = `${name}-${suffix}`;
    return { suffix, topic, bus: mockBus(name, { topics: { [topic]: partitions }, ...options }) };
  };

  it('says "published" for the request the broker holds and "never published" for one still queued, which is never sent', async () => {
    const { suffix, cmd, bus } = requestBus('slow');
    await bus.connect();
    await bus.joined();
    try {
      // The first produce request waits until released, as one to a stalled broker would.
      const producer = (bus as unknown as { producer: Producer }).producer;
      const sendBatch = producer.sendBatch.bind(producer);
      let release = () => {};
      const gate = new Promise<void>((r) => (release = r));
      let sending = () => {};
      const sent = new Promise<void>((r) => (sending = r));
      jest.spyOn(producer, 'sendBatch').mockImplementationOnce(async (batch) => {
        sending();
        await gate;
        return sendBatch(batch);
      });

      const timedOut = (n: number) =>
        bus.request(cmd, 'k', { n }, { timeoutMs: 300 }).then(
          () => undefined,
          (e: unknown) => e as BusTimeoutError,
        );
      // The second request comes while the first one's produce request is held.
      const first = timedOut(1);
      await sent;
      const [held, queued] = await Promise.all([first, timedOut(2)]);
      expect(held).toBeInstanceOf(BusTimeoutError);
      expect(held!.published).toBe(true);
      expect(queued).toBeInstanceOf(BusTimeoutError);
      expect(queued!.published).toBe(false);

      release();
      await bus.publish(cmd, 'k', { n: 3 });
      const seen: number[] = [];
      let done = () => {};
      const all = new Promise<void>((r) => (done = r));
      const sub = await bus.subscribe<{ n: number }>({
        groupId: `slow-reader-${suffix}`,
        topics: [cmd],
        start: 'earliest',
        handler: (m) => {
          seen.push(m.value.n);
          if (m.value.n === 3) done();
        },
      });
      await all;
      await sub.close();
      expect(seen).toEqual([1, 3]);
    } finally {
      await bus.close();
    }
  }, 40_000);

  it('connect() does not wait for the eager reply listener: joined() does; the listener reads without a group, so it is ready before a group formed beside it', async () => {
    const { suffix, cmd, bus } = requestBus('eager');
    await bus.connect();
    try {
      const order: string[] = [];
      const joined = bus.joined().then(() => void order.push('reply listener'));
      expect(order).toEqual([]);
      // A new group waits out the coordinator's initial rebalance delay (3 s on the mock); the
      // listener, reading its own reply partition alone, does not.
      const server = await bus.subscribe<{ n: number }>({
        groupId: `eager-server-${suffix}`,
        topics: [cmd],
        start: 'earliest',
        handler: (m) => void bus.reply(m, { doubled: m.value.n * 2 }),
      });
      order.push('group');
      await joined;
      expect(order).toEqual(['reply listener', 'group']);
      const reply = await bus.request<{ doubled: number }>(cmd, 'k', { n: 21 }, { timeoutMs: 5_000 });
      expect(reply.value).toEqual({ doubled: 42 });
      await server.close();
    } finally {
      await bus.close();
    }
  }, 40_000);

  it('a member kafkajs gave up on (crash without restart) revokes its partitions, rejoins as a new consumer and goes on from the last commit', async () => {
    const { suffix, topic, bus } = topicBus('rejoin', 2);
    await bus.connect();
    try {
      const seen: number[] = [];
      const events: string[] = [];
      let waiting: { n: number; resolve: () => void } | undefined;
      const until = (n: number) =>
        new Promise<void>((resolve) => (seen.includes(n) ? resolve() : (waiting = { n, resolve })));
      // Messages are published once it resolves: the handler never sees it undefined.
      const sub: Subscription = await bus.subscribe<{ n: number }>({
        groupId: `rejoin-group-${suffix}`,
        topics: [topic],
        handler: async (m) => {
          seen.push(m.value.n);
          await sub.commit({ topic, partition: m.partition, offset: String(BigInt(m.offset) + 1n) });
          if (waiting && waiting.n === m.value.n) waiting.resolve();
        },
        onAssigned: (tps) => void events.push(`assigned ${tps.length}`),
        onRevoked: (tps) => void events.push(`revoked ${tps.length}`),
      });
      await bus.publish(topic, 'a', { n: 1 });
      await until(1);
      // The first two replacements cannot join (a broker refusing them): the third does.
      const internal = sub as unknown as {
        consumer: unknown;
        rejoin(c: unknown): Promise<void>;
        runConsumer(c: unknown, open: () => void): Promise<void>;
      };
      const readyWhileRefused: boolean[] = [];
      const runConsumer = jest.spyOn(internal, 'runConsumer');
      for (let i = 0; i < 2; i++)
        runConsumer.mockImplementationOnce(async () => {
          readyWhileRefused.push(bus.isConnected());
          throw new Error('refused');
        });
      // What the CRASH listener does when kafkajs will not restart the consumer.
      await internal.rejoin(internal.consumer);
      expect(runConsumer).toHaveBeenCalledTimes(3);
      // Not ready from the first refusal until a replacement has joined.
      expect(readyWhileRefused).toEqual([true, false]);
      expect(bus.isConnected()).toBe(true);
      await bus.publish(topic, 'a', { n: 2 });
      await until(2);
      expect(seen).toEqual([1, 2]);
      // The mock may hold more partitions than configured: the same ones each time.
      const all = events[0];
      expect(all).toMatch(/^assigned \d+$/);
      expect(events).toEqual([all, all!.replace('assigned', 'revoked'), all]);
      expect(bus.isConnected()).toBe(true);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('a subscription closed while a replacement member joins leaves no consumer connected', async () => {
    const { suffix, topic, bus } = topicBus('rejoin-closed');
    await bus.connect();
    const tracker = trackKafkaClients();
    try {
      const sub = await bus.subscribe({
        groupId: `rejoin-closed-${suffix}`,
        topics: [topic],
        handler: () => undefined,
      });
      const internal = sub as unknown as {
        consumer: unknown;
        rejoin(c: unknown): Promise<void>;
        runConsumer(c: unknown, open: () => void): Promise<void>;
      };
      // The replacement starts joining only once the subscription has closed: close() disconnects
      // it before it has connected.
      const join = internal.runConsumer.bind(internal);
      let entered = () => {};
      const joining = new Promise<void>((r) => (entered = r));
      let release = () => {};
      const gate = new Promise<void>((r) => (release = r));
      jest.spyOn(internal, 'runConsumer').mockImplementationOnce(async (c, open) => {
        entered();
        await gate;
        return join(c, open);
      });
      const rejoined = internal.rejoin(internal.consumer);
      await joining;
      await sub.close();
      release();
      await rejoined;
      expect(tracker.open().filter((made) => made.includes('consumer'))).toEqual([]);
    } finally {
      tracker.stop();
      jest.restoreAllMocks();
      await bus.close();
    }
  }, 30_000);

  it('a join the broker keeps refusing is tried again with backoff until one succeeds, and up to its bound', async () => {
    const { suffix, topic, bus } = topicBus('join-retry', 1, {
      consumer: { joinRetry: { initialMs: 10, maxMs: 40, attempts: 8 } },
    });
    await bus.connect();
    try {
      // As the mock answers a SyncGroup that comes after the leader's: not retriable for kafkajs.
      const refusal = () =>
        new KafkaJSProtocolError(
          Object.assign(new Error('The request is invalid'), {
            type: 'INVALID_REQUEST',
            code: 42,
            retriable: false,
          }),
        );
      const start = jest.spyOn(KafkaSubscription.prototype, 'start');
      // More refusals than the five attempts a join used to get.
      for (let i = 0; i < 7; i++) start.mockRejectedValueOnce(refusal());
      const seen: number[] = [];
      let got = () => {};
      const received = new Promise<void>((r) => (got = r));
      const sub = await bus.subscribe<{ n: number }>({
        groupId: `join-retry-group-${suffix}`,
        topics: [topic],
        handler: (m) => {
          seen.push(m.value.n);
          got();
        },
      });
      expect(start).toHaveBeenCalledTimes(8);
      // The refused members are gone: only the one that joined counts for readiness.
      expect(bus.isConnected()).toBe(true);
      await bus.publish(topic, 'a', { n: 1 });
      await received;
      expect(seen).toEqual([1]);
      await sub.close();

      // The bound: the eighth refusal is the answer.
      start.mockReset();
      start.mockImplementation(() => Promise.reject(refusal()));
      await expect(
        bus.subscribe({ groupId: `join-retry-bound-${suffix}`, topics: [topic], handler: () => undefined }),
      ).rejects.toMatchObject({ type: 'INVALID_REQUEST' });
      expect(start).toHaveBeenCalledTimes(8);
      expect(bus.isConnected()).toBe(true);
    } finally {
      jest.restoreAllMocks();
      await bus.close();
    }
  }, 60_000);

  it('a bus closed while a join waits out its backoff makes no new member: the subscribe fails as closed', async () => {
    let waiting = () => {};
    const backoff = new Promise<void>((r) => (waiting = r));
    const { suffix, topic, bus } = topicBus('join-closed', 1, {
      logger: { ...logger, log: (line) => void (line.includes('attempt 2 in') && waiting()) },
      consumer: { joinRetry: { initialMs: 500, maxMs: 500, attempts: 8 } },
    });
    await bus.connect();
    const start = jest.spyOn(KafkaSubscription.prototype, 'start');
    try {
      start.mockImplementation(() => Promise.reject(new Error('refused')));
      const subscribing = bus.subscribe({
        groupId: `join-closed-${suffix}`,
        topics: [topic],
        handler: () => undefined,
      });
      subscribing.catch(() => undefined);
      await backoff;
      await bus.close();
      await expect(subscribing).rejects.toBeInstanceOf(BusClosedError);
      expect(start).toHaveBeenCalledTimes(1);
    } finally {
      jest.restoreAllMocks();
      await bus.close();
    }
  }, 30_000);
});
