import { randomBytes } from 'node:crypto';
import { type KafkaMock, startKafkaMock } from '@perp/testing';
import { KafkaJSProtocolError, type PartitionMetadata } from 'kafkajs';
import type { BusLogger } from '../bus';
import { silentLogger } from '../logger';
import { KafkaBus } from './kafka-bus';
import { ensureTopics, provisionTopics, type TopicAdmin } from './topic-provisioning';

/** Records what reaches each level: expected conditions must stay below WARN. */
function recordingLogger() {
  const lines: Record<'log' | 'warn' | 'error' | 'debug', string[]> = {
    log: [],
    warn: [],
    error: [],
    debug: [],
  };
  const logger: BusLogger = {
    log: (m) => lines.log.push(m),
    warn: (m) => lines.warn.push(m),
    error: (m) => lines.error.push(m),
    debug: (m) => lines.debug.push(m),
  };
  return { logger, lines };
}

/** A broker error as kafkajs raises it from a response (`retriable` per the protocol's table). */
function protocolError(type: string, code: number, retriable: boolean, message = type): KafkaJSProtocolError {
  return new KafkaJSProtocolError(Object.assign(new Error(message), { type, code, retriable }));
}

const FAST = { initialRetryTime: 5, maxRetryTime: 20, retries: 8 };

/**
 * What a real broker (ZooKeeper or KRaft) answers to admin requests of many processes at once: a
 * topic exists once for all, a creator that lost the race gets TOPIC_ALREADY_EXISTS (kafkajs
 * resolves false), and metadata requests miss a topic created a moment ago (UNKNOWN_TOPIC_OR_PARTITION,
 * retriable) until the controller's update reaches the broker that answers.
 */
class StandInBroker {
  /** Per topic: its partitions, and what lagging metadata still shows (0: not there) for `lagging` more requests. */
  private readonly topics = new Map<string, { partitions: number; shown: number; lagging: number }>();
  readonly created: string[] = [];
  refuseCreate?: KafkaJSProtocolError;
  calls = { createTopics: 0, createPartitions: 0, fetchTopicMetadata: 0 };

  constructor(private readonly lag = 3) {}

  partitions(topic: string): number | undefined {
    return this.topics.get(topic)?.partitions;
  }

  /** A topic that existed before the processes started. */
  preexisting(topic: string, partitions: number): void {
    this.topics.set(topic, { partitions, shown: partitions, lagging: 0 });
  }

  admin(): TopicAdmin {
    const turn = () => new Promise((r) => setImmediate(r));
    return {
      createTopics: async ({ topics }) => {
        this.calls.createTopics++;
        await turn();
        if (this.refuseCreate) throw this.refuseCreate;
        let createdAll = true;
        for (const { topic, numPartitions } of topics) {
          if (this.topics.has(topic)) createdAll = false;
          else {
            this.topics.set(topic, { partitions: numPartitions ?? 1, shown: 0, lagging: this.lag });
            this.created.push(topic);
          }
        }
        return createdAll;
      },
      createPartitions: async ({ topicPartitions }) => {
        this.calls.createPartitions++;
        await turn();
        for (const { topic, count } of topicPartitions) {
          const t = this.topics.get(topic);
          if (!t) throw protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3, true);
          if (t.partitions >= count)
            throw protocolError(
              'INVALID_PARTITIONS',
              37,
              false,
              `Topic already has ${t.partitions} partitions.`,
            );
          this.topics.set(topic, { partitions: count, shown: t.partitions, lagging: this.lag });
        }
        return true;
      },
      fetchTopicMetadata: async (options) => {
        this.calls.fetchTopicMetadata++;
        await turn();
        const names = options?.topics ?? [];
        const shown = names.map((name) => {
          const t = this.topics.get(name);
          if (!t) return 0;
          if (t.lagging === 0) return t.partitions;
          t.lagging--;
          return t.shown;
        });
        if (shown.includes(0)) throw protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3, true);
        return { topics: names.map((name, i) => ({ name, partitions: partitionList(shown[i]!) })) };
      },
    };
  }
}

function partitionList(count: number): PartitionMetadata[] {
  return Array.from({ length: count }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: 1,
    replicas: [1],
    isr: [1],
  }));
}

const TOPICS = { 'perp.a.v1': 8, 'perp.b.v1': 4, 'perp.c.v1': 1 };

describe('topic provisioning against a broker with an admin API (stand-in)', () => {
  it('8 processes at once: each topic is created once and every process gets the counts', async () => {
    const broker = new StandInBroker();
    const { logger, lines } = recordingLogger();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => ensureTopics(broker.admin(), TOPICS, { logger, retry: FAST })),
    );
    for (const r of results) expect(Object.fromEntries(r)).toEqual(TOPICS);
    expect(broker.created.sort()).toEqual(Object.keys(TOPICS).sort());
    // Losing the race and reading metadata too early are expected: nothing at WARN or ERROR.
    expect(lines.debug.some((l) => l.includes('UNKNOWN_TOPIC_OR_PARTITION'))).toBe(true);
    expect([...lines.warn, ...lines.error]).toEqual([]);
  });

  it('grows a topic that has fewer partitions than configured, also when two processes race to', async () => {
    const broker = new StandInBroker();
    broker.preexisting('perp.a.v1', 4);
    const [a, b] = await Promise.all([
      ensureTopics(broker.admin(), TOPICS, { retry: FAST, logger: silentLogger }),
      ensureTopics(broker.admin(), TOPICS, { retry: FAST, logger: silentLogger }),
    ]);
    expect(a.get('perp.a.v1')).toBe(8);
    expect(b.get('perp.a.v1')).toBe(8);
    expect(broker.partitions('perp.a.v1')).toBe(8);
  });

  it('with creation off, waits for topics another step provisions', async () => {
    const broker = new StandInBroker(0);
    const waiting = ensureTopics(broker.admin(), TOPICS, {
      create: false,
      retry: FAST,
      logger: silentLogger,
    });
    await new Promise((r) => setImmediate(r));
    await ensureTopics(broker.admin(), TOPICS, { retry: FAST, logger: silentLogger });
    expect(Object.fromEntries(await waiting)).toEqual(TOPICS);
  });

  it('gives up after the bound when the topics never appear, naming them and the reason', async () => {
    const broker = new StandInBroker();
    await expect(
      ensureTopics(broker.admin(), TOPICS, {
        create: false,
        retry: { ...FAST, retries: 3 },
        logger: silentLogger,
      }),
    ).rejects.toThrow(/topics perp\.a\.v1, perp\.b\.v1, perp\.c\.v1 not ready: UNKNOWN_TOPIC_OR_PARTITION/);
    expect(broker.calls.fetchTopicMetadata).toBe(4);
  });

  it('fails at once with the reason when creation is refused for good and the topics are missing', async () => {
    const broker = new StandInBroker();
    broker.refuseCreate = protocolError('TOPIC_AUTHORIZATION_FAILED', 29, false);
    await expect(ensureTopics(broker.admin(), TOPICS, { retry: FAST, logger: silentLogger })).rejects.toThrow(
      /not ready: TOPIC_AUTHORIZATION_FAILED/,
    );
    expect(broker.calls.createTopics).toBe(1);
  });

  it('uses topics provisioned beforehand when this process may not create them', async () => {
    const broker = new StandInBroker(0);
    await ensureTopics(broker.admin(), TOPICS, { retry: FAST, logger: silentLogger });
    broker.refuseCreate = protocolError('TOPIC_AUTHORIZATION_FAILED', 29, false);
    expect(
      Object.fromEntries(await ensureTopics(broker.admin(), TOPICS, { retry: FAST, logger: silentLogger })),
    ).toEqual(TOPICS);
  });
});

const targets: { name: string; brokers?: string[] }[] = [{ name: 'the librdkafka mock cluster (kcat)' }];
if (process.env.KAFKA_BROKERS)
  targets.push({
    name: `the real broker ${process.env.KAFKA_BROKERS}`,
    brokers: process.env.KAFKA_BROKERS.split(','),
  });

describe.each(targets)('cold start on $name', ({ brokers: realBrokers }) => {
  let mock: KafkaMock | undefined;
  let brokers: string[];

  beforeAll(async () => {
    brokers = realBrokers ?? (mock = await startKafkaMock()).brokers;
  });

  afterAll(async () => {
    await mock?.stop();
  });

  it('8 buses and a provisioning step connect at once to topics nobody created: all ready, nothing logged as an error', async () => {
    // Fresh names: on a real broker the topics of an earlier run exist.
    const run = randomBytes(4).toString('hex');
    const topics = { [`cold.${run}.a`]: 8, [`cold.${run}.b`]: 4, [`cold.${run}.replies`]: 4 };
    const { logger, lines } = recordingLogger();
    const buses = Array.from(
      { length: 8 },
      (_, i) =>
        new KafkaBus({
          brokers,
          clientId: `cold-${i}`,
          topics,
          replyTopic: `cold.${run}.replies`,
          eagerReplyListener: true,
          logger,
          consumer: realBrokers ? undefined : { sessionTimeoutMs: 2_500, heartbeatIntervalMs: 250 },
        }),
    );
    try {
      const [counts] = await Promise.all([
        provisionTopics(brokers, topics, { logger }),
        ...buses.map(async (b) => {
          await b.connect();
          await b.joined();
        }),
      ]);
      for (const b of buses) expect(b.isConnected()).toBe(true);
      // The mock auto-creates every topic with 4 partitions; a real broker has the configured counts.
      expect(counts).toEqual(
        realBrokers ? topics : Object.fromEntries(Object.keys(topics).map((t) => [t, 4])),
      );
      expect(lines.error).toEqual([]);
    } finally {
      await Promise.all(buses.map((b) => b.close()));
    }
  }, 60_000);
});
