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
import type { HotStore } from './hot-store';
import { MemoryHotStore } from './memory-hot-store';
import { RedisHotStore } from './redis-hot-store';

/** The process's HotStore. */
export const HOT_STORE = Symbol('HOT_STORE');

export interface CacheOptions {
  /** Prefix of every Redis key and channel; default `perp:<CHAIN>:` (one deployment per chain). */
  prefix?: string;
}

@Injectable()
class CacheLifecycle implements OnApplicationShutdown {
  constructor(@Inject(HOT_STORE) private readonly store: HotStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/**
 * The hot store for the process: Redis at `REDIS_URL`, memory when it is unset (embedded mode).
 * Connects before the app starts, reports `cache` on /readyz, closes on shutdown. Global: import it
 * once, in the root module.
 */
@Global()
@Module({})
export class CacheModule {
  static forRoot(config: Pick<AppConfig, 'REDIS_URL' | 'CHAIN'>, options: CacheOptions = {}): DynamicModule {
    return {
      module: CacheModule,
      providers: [
        {
          provide: HOT_STORE,
          inject: [Readiness],
          useFactory: async (readiness: Readiness): Promise<HotStore> => {
            const store: HotStore = config.REDIS_URL
              ? await RedisHotStore.connect(config.REDIS_URL, {
                  prefix: options.prefix ?? `perp:${config.CHAIN}:`,
                })
              : new MemoryHotStore();
            new Logger('Cache').log(`hot store: ${config.REDIS_URL ? 'Redis' : 'memory'}`);
            readiness.register('cache', () => store.ping());
            return store;
          },
        },
        CacheLifecycle,
      ],
      exports: [HOT_STORE],
    };
  }
}
