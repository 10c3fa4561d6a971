import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { join } from 'node:path';
import { type AppConfig, Metrics, Readiness } from '@perp/runtime';
import { Bus, type BusLogger } from './bus';
import { KafkaBus, type KafkaBusOptions } from './kafka/kafka-bus';
import type { TopicConfigs } from './kafka/topic-configs';
import { type PresenceStore, RedisPresence } from './kafka/member-liveness';
import type { JournalOptions } from './memory/journal';
import { MemoryBus } from './memory/memory-bus';
import { ObservedBus } from './observed-bus';

export interface BusModuleOptions {
  /** Topic name -> partition count (libs/contracts has the deployment's). */
  topics: Readonly<Record<string, number>>;
  /**
   * Kafka settings by topic (libs/contracts): set by Kafka provisioning; in memory mode a compacted
   * topic is kept whole when the journal's old segments are deleted.
   */
  topicConfigs?: TopicConfigs;
  /** Default reply topic of Bus.request. */
  replyTopic?: string;
  /** Memory mode: journal to `<DATA_DIR>/bus` (default), elsewhere, or not at all. */
  journal?: boolean | Partial<JournalOptions>;
  /** Kafka mode: consumer tuning, topic creation, reply listener. */
  kafka?: Pick<
    KafkaBusOptions,
    'consumer' | 'createTopics' | 'provisioningRetry' | 'eagerReplyListener' | 'maxBatch'
  >;
  retry?: KafkaBusOptions['retry'];
  logger?: BusLogger;
}

/** Where Kafka group members watch each other's processes: Redis, when the watch is on. */
export function connectPresence(
  config: Pick<AppConfig, 'BUS' | 'REDIS_URL' | 'CHAIN' | 'KAFKA_MEMBER_WATCH_MS'>,
): Promise<PresenceStore> | undefined {
  if (config.BUS !== 'kafka' || !config.REDIS_URL || config.KAFKA_MEMBER_WATCH_MS <= 0) return undefined;
  // The hot store's prefix (CacheModule): one deployment per chain.
  return RedisPresence.connect(config.REDIS_URL, { prefix: `perp:${config.CHAIN}:` });
}

/** The adapter the configuration names, not yet connected. */
export function createBus(config: AppConfig, options: BusModuleOptions, presence?: PresenceStore): Bus {
  const common = {
    topics: options.topics,
    replyTopic: options.replyTopic,
    retry: options.retry,
    logger: options.logger,
  };
  if (config.BUS === 'kafka') {
    if (!config.KAFKA_BROKERS) throw new Error('KAFKA_BROKERS: required when BUS=kafka');
    return new KafkaBus({
      ...common,
      ...options.kafka,
      topicConfigs: options.topicConfigs,
      consumer: {
        sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
        heartbeatIntervalMs: config.KAFKA_HEARTBEAT_INTERVAL_MS,
        rebalanceTimeoutMs: config.KAFKA_REBALANCE_TIMEOUT_MS,
        leaderSyncDelayMs: config.KAFKA_LEADER_SYNC_DELAY_MS,
        ...(presence ? { liveness: { presence, periodMs: config.KAFKA_MEMBER_WATCH_MS } } : {}),
        maxWaitTimeMs: config.KAFKA_FETCH_MAX_WAIT_MS,
        commitIntervalMs: config.KAFKA_COMMIT_INTERVAL_MS,
        ...options.kafka?.consumer,
      },
      brokers: config.KAFKA_BROKERS.split(',').map((b) => b.trim()),
      clientId: config.KAFKA_CLIENT_ID,
    });
  }
  const journal =
    options.journal === false
      ? undefined
      : {
          dir: join(config.dataDir, 'bus'),
          retentionMs: config.BUS_MEMORY_RETENTION_HOURS * 3_600_000,
          segmentBytes: config.BUS_MEMORY_SEGMENT_BYTES,
          ...(options.journal === true ? {} : options.journal),
        };
  return new MemoryBus({
    ...common,
    journal,
    keepWhole: Object.entries(options.topicConfigs ?? {})
      .filter(([, c]) => c['cleanup.policy']?.split(',').includes('compact'))
      .map(([topic]) => topic),
    retain: config.BUS_MEMORY_RETAIN,
    backgroundMaxDelayMs: config.BUS_MEMORY_BACKGROUND_MS,
  });
}

const BUS_PRESENCE = Symbol('BUS_PRESENCE');

@Injectable()
class BusLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(Bus) private readonly bus: Bus,
    @Inject(BUS_PRESENCE) private readonly presence: { store?: PresenceStore },
  ) {}

  /** The groups connect() started (joining beside those the modules started in onModuleInit). */
  onApplicationBootstrap(): Promise<void> {
    return this.bus.joined();
  }

  /** After every module's onModuleDestroy (their subscriptions close first). */
  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
    await this.presence.store?.close();
  }
}

/**
 * Provides the connected `Bus` (inject it by its class) for the whole application: memory (journaled
 * under DATA_DIR) or Kafka, as BUS says. Registers readiness check "bus"; reports its consumers'
 * batch sizes and lag to the application's Metrics; closes on shutdown.
 */
@Global()
@Module({})
export class BusModule {
  static forRoot(config: AppConfig, options: BusModuleOptions): DynamicModule {
    return {
      module: BusModule,
      providers: [
        { provide: BUS_PRESENCE, useFactory: async () => ({ store: await connectPresence(config) }) },
        {
          provide: Bus,
          inject: [BUS_PRESENCE, { token: Readiness, optional: true }, { token: Metrics, optional: true }],
          useFactory: async (
            presence: { store?: PresenceStore },
            readiness?: Readiness,
            metrics?: Metrics,
          ) => {
            const adapter = createBus(config, options, presence.store);
            const bus = metrics ? new ObservedBus(adapter, metrics.consumers) : adapter;
            readiness?.register('bus', () => bus.isConnected());
            await bus.connect();
            return bus;
          },
        },
        BusLifecycle,
      ],
      exports: [Bus],
    };
  }
}
