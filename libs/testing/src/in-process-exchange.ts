import type { INestApplication } from '@nestjs/common';
import { ExchangeModule } from '@perp/exchange';
import { createHttpApp, loadAppConfig } from '@perp/runtime';
import { REPO_ROOT } from './exchange-process';
import { join } from 'node:path';

export interface InProcessExchange {
  app: INestApplication;
  url: string;
  close: () => Promise<void>;
}

/** The embedded exchange inside the test process, on a free loopback port. */
export async function startInProcessExchange(env: Record<string, string> = {}): Promise<InProcessExchange> {
  const config = loadAppConfig({ DEPLOY_DIR: join(REPO_ROOT, 'deploy'), LOG_LEVEL: 'error', ...env });
  const app = await createHttpApp(ExchangeModule.forRoot(config), config, 'exchange-test');
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, close: () => app.close() };
}
