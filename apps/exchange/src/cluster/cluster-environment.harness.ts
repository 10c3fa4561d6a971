import { testDatabaseUrl } from '@perp/persistence';
import { type KafkaMock, type RunningApp, startAppProcess } from '@perp/testing';
import type Redis from 'ioredis';
import { TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { openClusterResources } from './cluster-environment';

/**
 * What a multi-process test runs its apps against: a fresh Kafka mock cluster, a fresh Postgres
 * database and a flushed Redis database of its own (the apps write under one key prefix, so two
 * suites must never share one; the numbers in use: 7 fault rounds, 8 funding crash, 10 trigger crash, 11 market-data replicas,
 * 12 cold start, 13 crash-replay, 14 metrics, 9 stream replicas, 4 liquidation crash; the
 * benchmark's cluster row takes BENCH_REDIS_URL, by default 6).
 */
export interface ClusterEnvironment {
  kafka: KafkaMock;
  redis: Redis;
  /** The environment every app process gets. */
  env: Record<string, string>;
  /** Starts an app's process against it; `close` kills it. */
  start(app: string, readyTimeoutMs?: number): Promise<RunningApp>;
  /**
   * Starts several at once and waits for all (in the order given). A process's start is mostly
   * waiting for its consumer groups to form (the mock holds a join for seconds), which the
   * processes do side by side; one after another a five-process cluster took about four times as long.
   */
  startAll<const T extends readonly string[]>(
    apps: T,
    readyTimeoutMs?: number,
  ): Promise<{ [K in keyof T]: RunningApp }>;
  /** Kills the processes, stops the mock, flushes Redis and drops the database. */
  close(): Promise<void>;
}

export async function openClusterEnvironment(
  name: string,
  redisDb: number,
  env: Record<string, string> = {},
): Promise<ClusterEnvironment> {
  // CLUSTER_REDIS_DB runs a suite on another database (two checkouts testing on one machine).
  const db = process.env.CLUSTER_REDIS_DB ? Number(process.env.CLUSTER_REDIS_DB) : redisDb;
  const resources = await openClusterResources({
    name,
    databaseUrl: testDatabaseUrl(),
    redisUrl: `redis://127.0.0.1:6379/${db}`,
    adminToken: TEST_ADMIN_TOKEN,
    env: {
      // The mock holds a join into a formed group for the session timeout less a second, and
      // refuses a follower whose SyncGroup comes after the leader's. It accepts sessions below a
      // stock broker's 6 s minimum: a dead member is noticed in 3 s. (The environment may say.)
      KAFKA_SESSION_TIMEOUT_MS: process.env.KAFKA_SESSION_TIMEOUT_MS ?? '3000',
      KAFKA_HEARTBEAT_INTERVAL_MS: process.env.KAFKA_HEARTBEAT_INTERVAL_MS ?? '300',
      KAFKA_LEADER_SYNC_DELAY_MS: process.env.KAFKA_LEADER_SYNC_DELAY_MS ?? '200',
      ...env,
    },
  });
  const apps: RunningApp[] = [];
  const start = async (app: string, readyTimeoutMs = 60_000) => {
    const a = await startAppProcess(app, resources.env, readyTimeoutMs);
    apps.push(a);
    return a;
  };
  return {
    kafka: resources.kafka,
    redis: resources.redis,
    env: resources.env,
    start,
    async startAll(names, readyTimeoutMs = 90_000) {
      // Settled, so that a failed start leaves no process unknown to close().
      const started = await Promise.allSettled(names.map((app) => start(app, readyTimeoutMs)));
      const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      return started.map((r) => (r as PromiseFulfilledResult<RunningApp>).value) as {
        [K in keyof typeof names]: RunningApp;
      };
    },
    async close() {
      await Promise.all(apps.map((a) => a.stop('SIGKILL').catch(() => undefined)));
      await resources.close();
    },
  };
}
