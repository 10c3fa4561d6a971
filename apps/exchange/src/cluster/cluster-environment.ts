/**
 * What the multi-process cluster runs against, apart from its processes: a fresh Kafka mock cluster
 * (kcat), a fresh Postgres database and a flushed Redis database, and the environment every app
 * process gets. Shared by the cluster test suites (cluster-environment.harness.ts starts the apps
 * with `startAppProcess`, which builds dist/ first) and the benchmark's cluster row (which runs from
 * dist/ and must not rebuild it), so it is not a harness file: the build keeps it.
 */
import { randomBytes } from 'node:crypto';
import { type KafkaMock, startKafkaMock } from '@perp/testing';
import Redis from 'ioredis';
import { Client } from 'pg';

/** The cluster of docker-compose.yml, one process per replica. */
export const CLUSTER_APPS = [
  'gateway',
  'risk',
  'risk',
  'matching-engine',
  'matching-engine',
  'market-data',
  'funding',
  'keeper',
] as const;

export interface ClusterResources {
  kafka: KafkaMock;
  redis: Redis;
  /** The environment every app process gets. */
  env: Record<string, string>;
  /** Stops the mock, flushes Redis and drops the database (the processes are the caller's). */
  close(): Promise<void>;
}

export interface ClusterResourceOptions {
  /** Part of the database name (letters, digits, _). */
  name: string;
  /** Any database of the Postgres server: the cluster's own is created beside it. */
  databaseUrl: string;
  redisUrl: string;
  adminToken: string;
  /** Added to (and overriding) the common environment. */
  env?: Record<string, string>;
}

export async function openClusterResources(o: ClusterResourceOptions): Promise<ClusterResources> {
  const kafka = await startKafkaMock();
  const dbName = `perp_${o.name}_${randomBytes(5).toString('hex')}`;
  const adminUrl = new URL(o.databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  const dropDatabase = async () => {
    const c = new Client({ connectionString: adminUrl.toString() });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
  };
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
  } catch (e) {
    await kafka.stop();
    throw e;
  } finally {
    await admin.end().catch(() => undefined);
  }
  const redis = new Redis(o.redisUrl);
  await redis.flushdb();
  const clusterUrl = new URL(o.databaseUrl);
  clusterUrl.pathname = `/${dbName}`;
  const env = {
    BUS: 'kafka',
    KAFKA_BROKERS: kafka.brokers.join(','),
    DATABASE_URL: clusterUrl.toString(),
    REDIS_URL: o.redisUrl,
    ADMIN_TOKEN: o.adminToken,
    JWT_SECRET: `${o.name}-cluster-test-jwt-secret-0123456789abcdef`,
    API_KEY_MASTER_KEY: '22'.repeat(32),
    // A loaded 2-core machine runs several processes and the mock: no 503 for a slow first answer.
    UPSTREAM_TIMEOUT_MS: '60000',
    ...o.env,
  };
  return {
    kafka,
    redis,
    env,
    async close() {
      await kafka.stop();
      await redis.flushdb();
      await redis.quit();
      await dropDatabase();
    },
  };
}
