import { silentLogger } from '@perp/bus';
import { createTestSchema, MIGRATIONS, type TestSchema } from '@perp/persistence';
import { loadAppConfig } from '@perp/runtime';
import { failOnOpenKafkaClients, type KafkaMock, startKafkaMock } from '@perp/testing';
import { migrateDatabase, provisionTopics } from './cluster-setup';

failOnOpenKafkaClients();

describe('migrateDatabase (the chart migrations Job)', () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('applies every migration once, then none on a re-run', async () => {
    const config = { DATABASE_URL: db.url };
    expect(await migrateDatabase(config, { schema: db.schema })).toEqual(MIGRATIONS.map((M) => new M().name));
    expect(await migrateDatabase(config, { schema: db.schema })).toEqual([]);
  });

  it('refuses to run without DATABASE_URL', async () => {
    await expect(migrateDatabase({})).rejects.toThrow('DATABASE_URL');
  });
});

describe('provisionTopics (the chart topics Job)', () => {
  let mock: KafkaMock;
  const kafka = () => loadAppConfig({ BUS: 'kafka', KAFKA_BROKERS: mock.brokers.join(',') });
  beforeAll(async () => {
    mock = await startKafkaMock({ brokers: 1 });
  });
  afterAll(async () => {
    await mock.stop();
  });

  it('ends with every topic present at its partition count, again on a re-run', async () => {
    // The mock refuses CreateTopics and auto-creates topics with 4 partitions.
    const topics = { 'ops.spec.four': 4, 'ops.spec.two': 2 };
    const first = await provisionTopics(kafka(), { topics, logger: silentLogger });
    expect(first['ops.spec.four']).toBe(4);
    expect(first['ops.spec.two']).toBeGreaterThanOrEqual(2);
    expect(await provisionTopics(kafka(), { topics, logger: silentLogger })).toEqual(first);
  }, 30_000);

  it('fails, naming the topic, when the broker leaves one with fewer partitions than the contract', async () => {
    await expect(
      provisionTopics(kafka(), { topics: { 'ops.spec.eight': 8 }, logger: silentLogger }),
    ).rejects.toThrow('ops.spec.eight has 4, needs 8');
  }, 30_000);

  it('refuses the memory bus', async () => {
    await expect(provisionTopics(loadAppConfig({ BUS: 'memory' }))).rejects.toThrow('BUS');
  });
});
