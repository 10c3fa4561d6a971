import { type BusLogger, createBus } from '@perp/bus';
import { topicConfigs, topicPartitions } from '@perp/contracts';
import { type DataSourceOptions, openAndMigrate } from '@perp/persistence';
import type { AppConfig } from '@perp/runtime';

/**
 * Cluster setup steps that run once per install or upgrade (the Helm chart's hook Jobs,
 * apps/exchange/src/ops): the apps would do both on start as well, but a Job does them before any
 * app runs, fails the release visibly when they cannot be done, and logs what it did.
 */

/** Applies pending migrations to DATABASE_URL under the migrations lock; the names applied (none on a re-run). */
export async function migrateDatabase(
  config: Pick<AppConfig, 'DATABASE_URL'>,
  options: DataSourceOptions = {},
): Promise<string[]> {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL: required to run migrations');
  const { dataSource, applied } = await openAndMigrate(config.DATABASE_URL, {
    poolSize: 1,
    applicationName: 'perp-exchange-migrations',
    ...options,
  });
  await dataSource.destroy();
  return applied;
}

/**
 * Creates the topics of libs/contracts with their partition counts and settings, grows smaller ones
 * and alters settings that differ (the Kafka bus does this on connect). Idempotent. Returns each topic's partition count on the broker;
 * throws when one has fewer than the contract names (the broker refused to create or grow it).
 */
export async function provisionTopics(
  config: AppConfig,
  options: { topics?: Record<string, number>; logger?: BusLogger } = {},
): Promise<Record<string, number>> {
  if (config.BUS !== 'kafka') throw new Error('BUS: topics are provisioned on Kafka only (BUS=kafka)');
  const topics = options.topics ?? topicPartitions();
  const bus = createBus(config, {
    topics,
    topicConfigs: options.topics ? {} : topicConfigs(),
    kafka: { createTopics: true },
    logger: options.logger,
  });
  await bus.connect();
  try {
    const found: Record<string, number> = {};
    for (const topic of Object.keys(topics)) found[topic] = (await bus.endOffsets(topic)).length;
    const short = Object.entries(topics).filter(([topic, wanted]) => found[topic] < wanted);
    if (short.length)
      throw new Error(
        `topics with fewer partitions than libs/contracts names: ${short
          .map(([topic, wanted]) => `${topic} has ${found[topic]}, needs ${wanted}`)
          .join('; ')}`,
      );
    return found;
  } finally {
    await bus.close();
  }
}
