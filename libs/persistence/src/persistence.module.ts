import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { type AppConfig, Readiness } from '@perp/runtime';
import type { DataSource, EntityManager } from 'typeorm';
import { type DataSourceOptions, pingDataSource } from './data-source';
import { type Database, openDatabase } from './database';
import {
  AdminAuditRepository,
  AlgoOrderRepository,
  ApiKeyRepository,
  ShardSnapshotRepository,
  ForceOrderRepository,
  IncomeRepository,
  InsuranceMovementRepository,
  ListenKeyRepository,
  MarketDataRepository,
  OrderRepository,
  ProcessedOffsetRepository,
  TradeRepository,
  UserRepository,
} from './repositories';

/** The connected, migrated TypeORM DataSource. */
export const PERSISTENCE_DATA_SOURCE = Symbol('PERSISTENCE_DATA_SOURCE');
const DATABASE = Symbol('PERSISTENCE_DATABASE');

/** Every repository, provided under its class. */
export const REPOSITORIES = [
  UserRepository,
  ApiKeyRepository,
  ProcessedOffsetRepository,
  ShardSnapshotRepository,
  AdminAuditRepository,
  OrderRepository,
  AlgoOrderRepository,
  TradeRepository,
  IncomeRepository,
  ForceOrderRepository,
  InsuranceMovementRepository,
  MarketDataRepository,
  ListenKeyRepository,
] as const;

@Injectable()
class PersistenceLifecycle implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  // Last of the shutdown hooks: consumers may still write while their modules are being destroyed.
  async onApplicationShutdown(): Promise<void> {
    await this.db.close();
  }
}

/**
 * Postgres for the process: `DATABASE_URL`, or the embedded database under `DATA_DIR/pg` when it is
 * unset. Connects and applies migrations before the app starts, reports `postgres` on /readyz and
 * closes on shutdown. Global: import it once, in the root module (one database per process).
 */
@Global()
@Module({})
export class PersistenceModule {
  static forRoot(
    config: Pick<AppConfig, 'DATABASE_URL' | 'dataDir'>,
    options: DataSourceOptions = {},
  ): DynamicModule {
    return {
      module: PersistenceModule,
      providers: [
        {
          provide: DATABASE,
          inject: [Readiness],
          useFactory: async (readiness: Readiness) => {
            const db = await openDatabase({
              ...options,
              databaseUrl: config.DATABASE_URL,
              dataDir: config.dataDir,
            });
            new Logger('Persistence').log(
              `${db.embedded ? `embedded Postgres in ${db.embedded.dataDir}` : 'Postgres'} ready; ` +
                `migrations applied now: ${db.applied.length ? db.applied.join(', ') : 'none'}`,
            );
            readiness.register('postgres', () => pingDataSource(db.dataSource));
            return db;
          },
        },
        { provide: PERSISTENCE_DATA_SOURCE, inject: [DATABASE], useFactory: (db: Database) => db.dataSource },
        ...REPOSITORIES.map((Repo) => ({
          provide: Repo,
          inject: [PERSISTENCE_DATA_SOURCE],
          useFactory: (ds: DataSource) => new (Repo as new (m: EntityManager) => unknown)(ds.manager),
        })),
        PersistenceLifecycle,
      ],
      exports: [PERSISTENCE_DATA_SOURCE, ...REPOSITORIES],
    };
  }
}
