// Test support for the access specs: a root module as the lead's will be, real HTTP, signing.
import { join } from 'node:path';
import { type INestApplication, type LoggerService, Module, type ModuleMetadata } from '@nestjs/common';
import { CacheModule, type CacheOptions } from '@perp/cache';
import { PersistenceModule, testDatabaseUrl } from '@perp/persistence';
import { type AppConfig, createHttpApp, loadAppConfig, RuntimeModule } from '@perp/runtime';
import type { ApiAccessOptions } from './access-options';
import { ApiAccessModule } from './api-access.module';

// The HTTP clients live in libs/testing, shared with the exchange's end-to-end specs.
export {
  authError,
  createKey,
  http,
  type HttpOptions,
  type HttpResponse,
  json,
  type KeyPair,
  login,
  nativeError,
  signed,
  type SignedOptions,
} from '@perp/testing';

export const REPO_ROOT = join(__dirname, '..', '..', '..', '..');
export const TEST_JWT_SECRET = 'test-jwt-secret-'.repeat(3);
export const TEST_MASTER_KEY = '5a'.repeat(32);

export interface AccessApp {
  app: INestApplication;
  url: string;
  config: AppConfig;
  close: () => Promise<void>;
}

export interface AccessAppOptions {
  schema: string;
  env?: Record<string, string>;
  access?: ApiAccessOptions;
  cache?: CacheOptions;
  logger?: LoggerService | false;
  /** More modules for the root (e.g. a FAPI module using `@Signed()`). */
  imports?: ModuleMetadata['imports'];
}

/** RuntimeModule + PersistenceModule (test schema) + CacheModule + ApiAccessModule on 127.0.0.1:0. */
export async function startAccessApp(o: AccessAppOptions): Promise<AccessApp> {
  const config = loadAppConfig({
    DEPLOY_DIR: join(REPO_ROOT, 'deploy'),
    LOG_LEVEL: 'error',
    DATABASE_URL: testDatabaseUrl(),
    JWT_SECRET: TEST_JWT_SECRET,
    API_KEY_MASTER_KEY: TEST_MASTER_KEY,
    ...o.env,
  });
  @Module({
    imports: [
      RuntimeModule.forRoot(config),
      PersistenceModule.forRoot(config, { schema: o.schema }),
      CacheModule.forRoot(config, o.cache),
      ApiAccessModule.forRoot(o.access),
      ...(o.imports ?? []),
    ],
  })
  class AccessTestApp {}
  const app = await createHttpApp(AccessTestApp, config, 'access-test', { logger: o.logger });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, config, close: () => app.close() };
}
