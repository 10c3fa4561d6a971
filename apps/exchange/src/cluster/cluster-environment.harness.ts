import { randomBytes } from 'node:crypto';
import { testDatabaseUrl } from '@perp/persistence';
import { type KafkaMock, type RunningApp, startAppProcess, startKafkaMock } from '@perp/testing';
import Redis from 'ioredis';
import { Client } from 'pg';
import { TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';

/**
 * What a multi-process test runs its apps against: a fresh Kafka mock cluster, a fresh Postgres
 * database and a flushed Redis database of its own (the apps write under one key prefix, so two
 * suites must never share one; the numbers in use: 7 fault rounds, 8 funding crash, 10 trigger crash, 11 market-data replicas,
 * 12 cold start, 13 crash-replay, 14 metrics, 9 stream replicas, 4 liquidation crash).
 */
export interface ClusterEnvironment {
  kafka: KafkaMock;
  redis: Redis;
  /** The environment every app process gets. */
  env: Record<string, string>;
  /** Starts an app's process against it; `close` kills it. */
  start(app: string, readyTimeoutMs?: number): Promise<RunningApp>;
  /** Kills the processes, stops the mock, flushes Redis and drops the database. */
  close(): Promise<void>;
}

export async function openClusterEnvironment(
  name: string,
  redisDb: number,
  env: Record<string, string> = {},
): Promise<ClusterEnvironment> {
  const kafka = await startKafkaMock();
  const dbName = `perp_${name}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  // CLUSTER_REDIS_DB runs a suite on another database (two checkouts testing on one machine).
  const db = process.env.CLUSTER_REDIS_DB ? Number(process.env.CLUSTER_REDIS_DB) : redisDb;
  const redisUrl = `redis://127.0.0.1:6379/${db}`;
  const redis = new Redis(redisUrl);
  await redis.flushdb();
  const apps: RunningApp[] = [];
  const all = {
    BUS: 'kafka',
    KAFKA_BROKERS: kafka.brokers.join(','),
    DATABASE_URL: testDatabaseUrl().replace(/\/[^/]*$/, `/${dbName}`),
    REDIS_URL: redisUrl,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    JWT_SECRET: `${name}-cluster-test-jwt-secret-0123456789abcdef`,
    API_KEY_MASTER_KEY: '22'.repeat(32),
    // A loaded 2-core machine runs several processes and the mock: no 503 for a slow first answer.
    UPSTREAM_TIMEOUT_MS: '60000',
    ...env,
  };
  return {
    kafka,
    redis,
    env: all,
    async start(app, readyTimeoutMs = 60_000) {
      const a = await startAppProcess(app, all, readyTimeoutMs);
      apps.push(a);
      return a;
    },
    async close() {
      await Promise.all(apps.map((a) => a.stop('SIGKILL').catch(() => undefined)));
      await kafka.stop();
      await redis.flushdb();
      await redis.quit();
      const c = new Client({ connectionString: testDatabaseUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    },
  };
}
