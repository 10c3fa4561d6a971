import { type DynamicModule, Global, Module } from '@nestjs/common';
import { BusModule } from '@perp/bus';
import { CacheModule } from '@perp/cache';
import { TOPICS, topicConfigs, topicPartitions } from '@perp/contracts';
import { PersistenceModule } from '@perp/persistence';
import { type AppConfig, RuntimeModule } from '@perp/runtime';
import { MarketsProjection } from './markets/markets-projection';

export interface InfrastructureOptions {
  /** Postgres schema (tests give each run its own). */
  schema?: string;
  /** Memory bus: journal to DATA_DIR (default true). */
  journal?: boolean;
  /**
   * Kafka: join the reply listener before the process is ready (processes that send requests).
   * Otherwise the first request joins it, and waits for a new group to form (3 s on the mock).
   */
  eagerReplyListener?: boolean;
}

/**
 * What every process stands on, with adapters chosen by configuration: config, probes and error
 * envelopes; the log (memory or Kafka); Postgres (embedded or a server); the hot store (memory or
 * Redis); and the live market list projected from the markets topic.
 */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(config: AppConfig, options: InfrastructureOptions = {}): DynamicModule {
    return {
      module: InfrastructureModule,
      imports: [
        RuntimeModule.forRoot(config),
        BusModule.forRoot(config, {
          topics: topicPartitions(),
          replyTopic: TOPICS.replies.name,
          journal: options.journal ?? true,
          topicConfigs: topicConfigs(),
          ...(options.eagerReplyListener ? { kafka: { eagerReplyListener: true } } : {}),
        }),
        PersistenceModule.forRoot(config, { schema: options.schema }),
        CacheModule.forRoot(config),
      ],
      providers: [MarketsProjection],
      exports: [MarketsProjection],
    };
  }
}
