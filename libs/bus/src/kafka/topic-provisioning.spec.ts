import { randomBytes } from 'node:crypto';
import { type KafkaMock, startKafkaMock, failOnOpenKafkaClients } from '@perp/testing';
import { ConfigSource, KafkaJSProtocolError, type PartitionMetadata } from 'kafkajs';
import type { BusLogger } from '../bus';
import { silentLogger } from '../logger';
import { KafkaBus } from './kafka-bus';
import { ensureTopics, provisionTopics, type TopicAdmin } from './topic-provisioning';

failOnOpenKafkaClients();

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
  /** Topic-level overrides (what describeConfigs reports as TOPIC_CONFIG). */
  readonly settings = new Map<string, Map<string, string>>();
  refuseCreate?: KafkaJSProtocolError;
  refuseAlter?: KafkaJSProtocolError;
  /** describeConfigs answers UNKNOWN_TOPIC_OR_PARTITION this many more times (a lagging broker). */
  describeLag = 0;
  calls = {
    createTopics: 0,
    createPartitions: 0,
    fetchTopicMetadata: 0,
    describeConfigs: 0,
    alterConfigs: 0,
  };

  constructor(private readonly lag = 3) {}

  partitions(topic: string): number | undefined {
    return this.topics.get(topic)?.partitions;
  }

  /** A topic that existed before the processes started. */
  preexisting(topic: string, partitions: number, settings: Record<string, string> = {}): void {
    this.topics.set(topic, { partitions, shown: partitions, lagging: 0 });
    this.settings.set(topic, new Map(Object.entries(settings)));
  }

  admin(): TopicAdmin {
    const turn = () => new Promise((r) => setImmediate(r));
    return {
      createTopics: async ({ topics }) => {
        this.calls.createTopics++;
        await turn();
        if (this.refuseCreate) throw this.refuseCreate;
        let createdAll = true;
        for (const { topic, numPartitions, configEntries } of topics) {
          if (this.topics.has(topic)) createdAll = false;
          else {
            this.topics.set(topic, { partitions: numPartitions ?? 1, shown: 0, lagging: this.lag });
            this.settings.set(topic, new Map((configEntries ?? []).map((e) => [e.name, e.value])));
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
      describeConfigs: async ({ resources }) => {
        this.calls.describeConfigs++;
        await turn();
        if (this.describeLag > 0) {
          this.describeLag--;
          throw protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3, true);
        }
        return {
          throttleTime: 0,
          resources: resources.map(({ name, type }) => ({
            resourceName: name,
            resourceType: type,
            errorCode: 0,
            errorMessage: '',
            // A broker lists every setting: overrides as TOPIC_CONFIG, the rest as defaults.
            configEntries: [
              ...[...(this.settings.get(name) ?? [])].map(([configName, configValue]) =>
                entry(configName, configValue, ConfigSource.TOPIC_CONFIG),
              ),
              ...Object.entries(BROKER_DEFAULTS)
                .filter(([k]) => !this.settings.get(name)?.has(k))
                .map(([configName, configValue]) =>
                  entry(configName, configValue, ConfigSource.DEFAULT_CONFIG),
                ),
            ],
          })),
        };
      },
      alterConfigs: async ({ resources }) => {
        this.calls.alterConfigs++;
        await turn();
        if (this.refuseAlter) throw this.refuseAlter;
        // AlterConfigs (not the incremental one): the given set replaces every override.
        for (const { name, configEntries } of resources)
          this.settings.set(name, new Map(configEntries.map((e) => [e.name, e.value])));
        return { resources: [], throttleTime: 0 };
      },
    };
  }
}

const BROKER_DEFAULTS: Record<string, string> = { 'cleanup.policy': 'delete', 'retention.ms': '604800000' };

function entry(configName: string, configValue: string, configSource: ConfigSource) {
  return {
    configName,
    configValue,
    configSource,
    isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
    isSensitive: false,
    readOnly: false,
    configSynonyms: [],
  };
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

const CONFIGS = { 'perp.c.v1': { 'cleanup.policy': 'compact' } };

describe('topic settings (stand-in broker with an admin API)', () => {
  it('8 processes at once create each topic once with its settings, and nothing is altered or warned', async () => {
    const broker = new StandInBroker();
    const { logger, lines } = recordingLogger();
    await Promise.all(
      Array.from({ length: 8 }, () =>
        ensureTopics(broker.admin(), TOPICS, { logger, retry: FAST, configs: CONFIGS }),
      ),
    );
    expect(Object.fromEntries(broker.settings.get('perp.c.v1')!)).toEqual({ 'cleanup.policy': 'compact' });
    expect(Object.fromEntries(broker.settings.get('perp.a.v1')!)).toEqual({});
    expect(broker.calls.alterConfigs).toBe(0);
    expect([...lines.warn, ...lines.error]).toEqual([]);
  });

  it("alters an existing topic that is not compacted, keeping the operator's other overrides", async () => {
    const broker = new StandInBroker(0);
    broker.preexisting('perp.c.v1', 1, { 'cleanup.policy': 'delete', 'retention.ms': '86400000' });
    const { logger, lines } = recordingLogger();
    await ensureTopics(broker.admin(), TOPICS, { logger, retry: FAST, configs: CONFIGS });
    expect(Object.fromEntries(broker.settings.get('perp.c.v1')!)).toEqual({
      'cleanup.policy': 'compact',
      'retention.ms': '86400000',
    });
    expect(lines.log).toEqual(['kafka: topic perp.c.v1 had cleanup.policy=delete, wants compact: altered']);
    // A second start finds it as wanted.
    await ensureTopics(broker.admin(), TOPICS, { logger, retry: FAST, configs: CONFIGS });
    expect(broker.calls.alterConfigs).toBe(1);
  });

  it('a topic left at the broker default (delete) is altered too', async () => {
    const broker = new StandInBroker(0);
    broker.preexisting('perp.c.v1', 1);
    await ensureTopics(broker.admin(), TOPICS, { logger: silentLogger, retry: FAST, configs: CONFIGS });
    expect(broker.settings.get('perp.c.v1')!.get('cleanup.policy')).toBe('compact');
  });

  it('with creation off, a topic that differs is reported at WARN and left as it is', async () => {
    const broker = new StandInBroker(0);
    for (const [t, n] of Object.entries(TOPICS)) broker.preexisting(t, n);
    const { logger, lines } = recordingLogger();
    const counts = await ensureTopics(broker.admin(), TOPICS, {
      create: false,
      logger,
      retry: FAST,
      configs: CONFIGS,
    });
    expect(Object.fromEntries(counts)).toEqual(TOPICS);
    expect(broker.calls.alterConfigs).toBe(0);
    expect(lines.warn).toEqual([
      'kafka: topic perp.c.v1 has cleanup.policy=delete, wants compact (libs/contracts); provision the topics to fix it',
    ]);
  });

  it('a refused alteration is reported at WARN and the topics are still used', async () => {
    const broker = new StandInBroker(0);
    broker.preexisting('perp.c.v1', 1);
    broker.refuseAlter = protocolError('CLUSTER_AUTHORIZATION_FAILED', 31, false);
    const { logger, lines } = recordingLogger();
    const counts = await ensureTopics(broker.admin(), TOPICS, { logger, retry: FAST, configs: CONFIGS });
    expect(counts.get('perp.c.v1')).toBe(1);
    expect(lines.warn).toEqual([
      'kafka: topic perp.c.v1 has cleanup.policy=delete, wants compact and altering it was refused (CLUSTER_AUTHORIZATION_FAILED)',
    ]);
    expect(broker.settings.get('perp.c.v1')!.get('cleanup.policy')).toBeUndefined();
  });

  it('settings not readable yet (a topic the answering broker does not know) are tried again', async () => {
    const broker = new StandInBroker(0);
    broker.preexisting('perp.c.v1', 1);
    broker.describeLag = 2;
    const { logger, lines } = recordingLogger();
    await ensureTopics(broker.admin(), TOPICS, { logger, retry: FAST, configs: CONFIGS });
    expect(broker.calls.describeConfigs).toBe(3);
    expect(broker.settings.get('perp.c.v1')!.get('cleanup.policy')).toBe('compact');
    expect(lines.warn).toEqual([]);
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
          // The mock has no settings to read: they are skipped, not retried until the bound.
          topicConfigs: { [`cold.${run}.replies`]: { 'retention.ms': '3600000' } },
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
