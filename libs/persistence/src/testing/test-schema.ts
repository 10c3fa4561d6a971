import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { type DataSourceOptions, openDataSource } from '../data-source';

/** The test database (deploy/scripts/test.sh creates it). */
export function testDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/perp_test';
}

export interface TestSchema {
  url: string;
  schema: string;
  /** Drops the schema and everything in it. */
  drop: () => Promise<void>;
}

/**
 * A fresh, empty schema in the test database, so that parallel Jest workers never see each
 * other's tables. Pass `schema` to `createDataSource` / `PersistenceModule.forRoot`.
 */
export async function createTestSchema(url = testDatabaseUrl()): Promise<TestSchema> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await withClient(url, (c) => c.query(`CREATE SCHEMA ${schema}`));
  return {
    url,
    schema,
    drop: () =>
      withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).then(() => undefined),
  };
}

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase extends TestSchema {
  dataSource: DataSource;
  /** Closes the DataSource and drops the schema. */
  close: () => Promise<void>;
}

/** A migrated DataSource on a fresh schema of the test database. */
export async function openTestDatabase(
  options: Omit<DataSourceOptions, 'schema'> = {},
): Promise<TestDatabase> {
  const schema = await createTestSchema();
  try {
    const dataSource = await openDataSource(schema.url, { ...options, schema: schema.schema });
    return {
      ...schema,
      dataSource,
      close: async () => {
        await dataSource.destroy();
        await schema.drop();
      },
    };
  } catch (e) {
    await schema.drop();
    throw e;
  }
}
