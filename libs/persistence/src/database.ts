import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { type DataSourceOptions, openAndMigrate } from './data-source';
import {
  EMBEDDED_POOL_SIZE,
  type EmbeddedPostgres,
  startEmbeddedPostgres,
} from './embedded/embedded-postgres';

export interface DatabaseConfig extends DataSourceOptions {
  /** A Postgres server; unset = the embedded database under `dataDir`. */
  databaseUrl?: string;
  /** Embedded mode: its files go to `<dataDir>/pg`. */
  dataDir: string;
}

export interface Database {
  dataSource: DataSource;
  /** Migrations this start applied (empty when the schema was current). */
  applied: string[];
  /** Set in embedded mode. */
  embedded?: EmbeddedPostgres;
  close: () => Promise<void>;
}

/** Connects (starting the embedded server when there is no URL) and applies pending migrations. */
export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  const { databaseUrl, dataDir, ...options } = config;
  if (databaseUrl) {
    const { dataSource, applied } = await openAndMigrate(databaseUrl, options);
    return { dataSource, applied, close: () => dataSource.destroy() };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg') });
  try {
    const { dataSource, applied } = await openAndMigrate(embedded.url, {
      ...options,
      poolSize: EMBEDDED_POOL_SIZE,
      // With one connection, waiting for it is normal (a long transaction), not a fault.
      connectTimeoutMs: 0,
    });
    return {
      dataSource,
      applied,
      embedded,
      close: async () => {
        try {
          if (dataSource.isInitialized) await dataSource.destroy();
        } finally {
          await embedded.stop();
        }
      },
    };
  } catch (e) {
    await embedded.stop();
    throw e;
  }
}
