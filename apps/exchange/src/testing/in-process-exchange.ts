import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema } from '@perp/persistence';
import { createHttpApp, loadAppConfig } from '@perp/runtime';
import { REPO_ROOT } from '@perp/testing';
import { ExchangeModule } from '../exchange.module';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface InProcessExchange {
  app: INestApplication;
  url: string;
  adminToken: string;
  close: () => Promise<void>;
}

/**
 * The embedded exchange inside the test process, on a free loopback port: memory bus (no journal),
 * a fresh schema of the real test Postgres, memory hot store.
 */
export async function startInProcessExchange(env: Record<string, string> = {}): Promise<InProcessExchange> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-exchange-'));
  const schema = await createTestSchema();
  const config = loadAppConfig({
    DEPLOY_DIR: join(REPO_ROOT, 'deploy'),
    DATA_DIR: dataDir,
    DATABASE_URL: schema.url,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // A real database means cluster rules: the auth secrets must be given, not generated.
    JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
    API_KEY_MASTER_KEY: '00'.repeat(32),
    LOG_LEVEL: 'error',
    ...env,
  });
  const app = await createHttpApp(
    ExchangeModule.forRoot(config, { schema: schema.schema, journal: false }),
    config,
    'exchange-test',
  );
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    url,
    adminToken: config.ADMIN_TOKEN ?? TEST_ADMIN_TOKEN,
    close: async () => {
      await app.close();
      await schema.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
