import {
  type Admin,
  KafkaJSBrokerNotFound,
  KafkaJSNumberOfRetriesExceeded,
  type RetryOptions,
} from 'kafkajs';
import createRetry from 'kafkajs/src/retry';
import type { BusLogger } from '../bus';
import { busLogger, errorText } from '../logger';
import { createKafka, isRetriable } from './kafka-client';
import { reconcileTopicConfigs, type TopicConfigAdmin, type TopicConfigs } from './topic-configs';

export interface TopicProvisioningOptions {
  /**
   * Create missing topics with their partition counts and grow smaller ones (default true). False:
   * only wait for the topics to exist (another step provisions them).
   */
  create?: boolean;
  /** Backoff between attempts and their bound (kafkajs's retrier); default PROVISIONING_RETRY. */
  retry?: RetryOptions;
  logger?: BusLogger;
  /**
   * Settings topics must have (libs/contracts: the markets topic is compacted). Set on creation;
   * an existing topic that differs is altered (with `create`) or reported at WARN.
   */
  configs?: TopicConfigs;
}

/** About 20 s of attempts: a fresh broker creates the offsets topic and elects leaders meanwhile. */
export const PROVISIONING_RETRY: RetryOptions = {
  initialRetryTime: 100,
  maxRetryTime: 3_000,
  multiplier: 2,
  factor: 0.2,
  retries: 10,
};

/** The admin calls provisioning uses (a stand-in for a broker in tests implements these). */
export type TopicAdmin = Pick<Admin, 'createTopics' | 'createPartitions' | 'fetchTopicMetadata'> &
  TopicConfigAdmin;

/** A topic still short of its partitions after growing it: the broker's metadata lags. */
class PartitionsPendingError extends Error {
  readonly retriable = true;
}

/**
 * Makes `topics` exist and returns each one's partition count on the broker. Safe to run from any
 * number of processes at once: a topic another process created is success, and what a fresh
 * broker answers meanwhile (unknown topic, no leader yet, no coordinator) is retried with backoff
 * up to the bound. Where the admin API cannot reach a controller (librdkafka's mock cluster) the
 * metadata request auto-creates the topics, with the broker's default partition count.
 */
export async function ensureTopics(
  admin: TopicAdmin,
  topics: Readonly<Record<string, number>>,
  options: TopicProvisioningOptions = {},
): Promise<Map<string, number>> {
  const logger = busLogger(options);
  const wanted = Object.entries(topics);
  if (!wanted.length) return new Map();
  const create = options.create ?? true;
  const retrier = createRetry({ ...PROVISIONING_RETRY, ...options.retry });
  try {
    return await retrier(async (bail, retryCount, retryTime) => {
      try {
        return await provisionOnce(admin, wanted, create, logger, options.configs ?? {});
      } catch (e) {
        if (!isRetriable(e)) bail(e as Error);
        else
          logger.debug?.(
            `kafka: topics not ready (${errorText(e)}); attempt ${retryCount + 2} in ~${retryTime} ms`,
          );
        throw e;
      }
    });
  } catch (e) {
    const last = e instanceof KafkaJSNumberOfRetriesExceeded ? (e.cause ?? e) : e;
    throw new Error(`kafka: topics ${wanted.map(([t]) => t).join(', ')} not ready: ${errorText(last)}`, {
      cause: e,
    });
  }
}

async function provisionOnce(
  admin: TopicAdmin,
  wanted: [string, number][],
  create: boolean,
  logger: BusLogger,
  configs: TopicConfigs,
): Promise<Map<string, number>> {
  let refused: unknown;
  // No controller in the metadata: the mock cluster, which has no admin API (or an election).
  let noController = false;
  if (create) {
    try {
      // Resolves false when another process created them first.
      await admin.createTopics({
        topics: wanted.map(([topic, numPartitions]) => ({
          topic,
          numPartitions,
          configEntries: Object.entries(configs[topic] ?? {}).map(([name, value]) => ({ name, value })),
        })),
        waitForLeaders: true,
      });
    } catch (e) {
      refused = e;
      noController = e instanceof KafkaJSBrokerNotFound;
      logger.debug?.(
        `kafka: createTopics refused (${errorText(e)}): relying on auto-creation or another process`,
      );
    }
  }
  const names = wanted.map(([t]) => t);
  // Still missing after a creation refused for good: that refusal is the reason to report.
  const refusedForGood = refused !== undefined && !isRetriable(refused);
  let counts = await partitionCounts(admin, names).catch((e: unknown) => {
    throw refusedForGood ? refused : e;
  });
  const short = wanted.filter(([t, n]) => (counts.get(t) ?? 0) < n);
  // The mock has no admin API; its topics have no settings to read.
  if (noController) return counts;
  if (short.length && create) counts = await grow(admin, short, names, logger);
  await reconcileTopicConfigs(admin, onlyWanted(configs, wanted), { alter: create, logger });
  return counts;
}

async function grow(
  admin: TopicAdmin,
  short: [string, number][],
  names: string[],
  logger: BusLogger,
): Promise<Map<string, number>> {
  try {
    await admin.createPartitions({ topicPartitions: short.map(([topic, count]) => ({ topic, count })) });
  } catch (e) {
    // Most often another process grew them first (INVALID_PARTITIONS); the counts tell.
    logger.debug?.(`kafka: createPartitions refused: ${errorText(e)}`);
  }
  const counts = await partitionCounts(admin, names);
  const still = short.filter(([t, n]) => (counts.get(t) ?? 0) < n);
  if (still.length)
    throw new PartitionsPendingError(
      `partitions of ${still.map(([t, n]) => `${t} (${n})`).join(', ')} pending`,
    );
  return counts;
}

function onlyWanted(configs: TopicConfigs, wanted: [string, number][]): TopicConfigs {
  return Object.fromEntries(wanted.filter(([t]) => configs[t]).map(([t]) => [t, configs[t]!]));
}

async function partitionCounts(admin: TopicAdmin, names: string[]): Promise<Map<string, number>> {
  const md = await admin.fetchTopicMetadata({ topics: names });
  return new Map(md.topics.map((t) => [t.name, t.partitions.length]));
}

/**
 * Topic provisioning as a step of its own (a deployment's Job, before or beside the apps): creates
 * the topics with their partition counts, grows smaller ones, and returns the broker's count of
 * each. Idempotent; fails after the retry bound with the last reason.
 */
export async function provisionTopics(
  brokers: string[],
  topics: Readonly<Record<string, number>>,
  options: TopicProvisioningOptions & { clientId?: string } = {},
): Promise<Record<string, number>> {
  const logger = busLogger(options);
  const kafka = createKafka({ brokers, clientId: options.clientId ?? 'perp-topic-provisioning', logger });
  const admin = kafka.admin();
  await admin.connect();
  try {
    return Object.fromEntries(await ensureTopics(admin, topics, { ...options, logger }));
  } finally {
    await admin.disconnect();
  }
}
