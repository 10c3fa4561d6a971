import { randomBytes } from 'node:crypto';
import { testDatabaseUrl } from '@perp/persistence';
import { type KafkaMock, type RunningApp, startAppProcess, startKafkaMock } from '@perp/testing';
import Redis from 'ioredis';
import { Client } from 'pg';
import { TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';

/** The cluster of docker-compose.yml, one process per replica. */
const CLUSTER = [
  'gateway',
  'risk',
  'risk',
  'matching-engine',
  'matching-engine',
  'market-data',
  'funding',
  'keeper',
] as const;

// Issue 18's cold start: every process of the cluster started at the same moment against a fresh
// broker (no topic, no group, no offset) and a fresh database; they race to create the topics, the
// schema and the consumer groups, and every one of them must still become ready.
describe('cold start: the whole cluster at once on a fresh Kafka mock', () => {
  let kafka: KafkaMock | undefined;
  let dbName: string | undefined;
  let redis: Redis | undefined;
  const apps: RunningApp[] = [];

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop('SIGKILL').catch(() => undefined)));
    await kafka?.stop();
    if (redis) {
      await redis.flushdb();
      await redis.quit();
    }
    if (dbName) {
      const c = new Client({ connectionString: testDatabaseUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    }
  });

  it('starts gateway, 2 risk, 2 engine, market-data, funding and keeper together: all answer /readyz', async () => {
    kafka = await startKafkaMock();
    dbName = `perp_cold_${randomBytes(5).toString('hex')}`;
    const admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    // Its own database, as crash-replay has 13: the apps write under the same key prefix.
    const redisUrl = 'redis://127.0.0.1:6379/12';
    redis = new Redis(redisUrl);
    await redis.flushdb();
    const env = {
      BUS: 'kafka',
      KAFKA_BROKERS: kafka.brokers.join(','),
      DATABASE_URL: testDatabaseUrl().replace(/\/[^/]*$/, `/${dbName}`),
      REDIS_URL: redisUrl,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      JWT_SECRET: 'cold-start-jwt-secret-0123456789abcdef',
      API_KEY_MASTER_KEY: '22'.repeat(32),
    };
    const started = await Promise.allSettled(
      CLUSTER.map(async (app) => {
        // About 30 s on an idle 2-core machine; the bound leaves room for a loaded one.
        const a = await startAppProcess(app, env, 90_000);
        apps.push(a);
        return a;
      }),
    );
    const failed = started.flatMap((s, i) =>
      s.status === 'rejected' ? [`${CLUSTER[i]}: ${String(s.reason).slice(0, 3000)}`] : [],
    );
    expect(failed).toEqual([]);
    for (const a of apps) expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    // Racing for topics and groups is expected on a cold start: nothing of it is an error.
    const errors = apps.flatMap((a) => a.output().split('\n')).filter((l) => l.includes('"level":"error"'));
    expect(errors).toEqual([]);
  }, 150_000);
});
