import { DataSource, MigrationExecutor } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface DataSourceOptions {
  /** Schema of every table and of the migrations table (tests use one per file); default `public`. */
  schema?: string;
  /** Size of the `pg` pool. The embedded server uses 1 (see embedded-postgres.ts). Default 10. */
  poolSize?: number;
  /** Max wait for a pooled connection, ms; 0 waits forever. Default 10 000. */
  connectTimeoutMs?: number;
  logging?: boolean;
  applicationName?: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A TypeORM DataSource on `pg` with this library's entities and migrations; not yet initialized.
 * Never `synchronize`: the schema changes only through migrations (`runMigrations`).
 */
export function createDataSource(url: string, options: DataSourceOptions = {}): DataSource {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  return new DataSource({
    type: 'postgres',
    url,
    schema,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    migrationsRun: false,
    installExtensions: false,
    logging: options.logging ?? false,
    applicationName: options.applicationName ?? 'perp-exchange',
    poolSize: options.poolSize ?? 10,
    connectTimeoutMS: options.connectTimeoutMs ?? 10_000,
    // Raw SQL in migrations is unqualified: the search path puts it in the same schema as TypeORM.
    extra: schema ? { options: `-c search_path=${schema}` } : {},
  });
}

/**
 * Applies pending migrations, each in its own transaction, under a Postgres advisory lock so that
 * processes starting together (every app of a cluster) apply them once. The lock and the migrations
 * share one connection, so this works with a pool of 1. Returns the names applied (none on a re-run).
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const key = `concat_ws(':', 'perp-exchange:migrations', current_database(), current_schema())`;
  try {
    await runner.query(`SELECT pg_advisory_lock(hashtext(${key}))`);
    try {
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      return (await executor.executePendingMigrations()).map((m) => m.name);
    } finally {
      // A failed unlock means a broken connection, whose session (and lock) is gone anyway.
      await runner.query(`SELECT pg_advisory_unlock(hashtext(${key}))`).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

/** Creates, connects and migrates; closes again if any step fails. */
export async function openDataSource(url: string, options: DataSourceOptions = {}): Promise<DataSource> {
  return (await openAndMigrate(url, options)).dataSource;
}

/** `openDataSource`, also telling which migrations it applied. */
export async function openAndMigrate(
  url: string,
  options: DataSourceOptions = {},
): Promise<{ dataSource: DataSource; applied: string[] }> {
  const dataSource = createDataSource(url, options);
  await dataSource.initialize();
  try {
    return { dataSource, applied: await runMigrations(dataSource) };
  } catch (e) {
    await dataSource.destroy();
    throw e;
  }
}

/** True when a trivial query answers within `timeoutMs` (readiness probe). */
export async function pingDataSource(dataSource: DataSource, timeoutMs = 2_000): Promise<boolean> {
  if (!dataSource.isInitialized) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([dataSource.query('SELECT 1').then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
