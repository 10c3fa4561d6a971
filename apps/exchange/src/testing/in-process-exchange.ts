import type { INestApplication } from '@nestjs/common';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema } from '@perp/persistence';
import { createHttpApp, loadAppConfig } from '@perp/runtime';
import { REPO_ROOT } from '@perp/testing';
import { ExchangeModule } from '../exchange.module';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/** A market of chain.json as plain JSON, for a test to edit. */
export type ChainMarketJson = Record<string, unknown> & { symbol: string };

export interface InProcessExchangeOptions {
  /** Edits the devnet markets before start (the chain is copied into the data directory). */
  markets?: (market: ChainMarketJson) => void;
}

/**
 * For tests asserting figures at mark = index: no interest, so a market without premium (a book
 * thinner than the impact notional) has mark = index. With interest, Binance's price 1 puts the
 * mark above the index by the interest still to accrue before the next funding time.
 */
export const noInterest = (m: ChainMarketJson): void => {
  m.interestRate = '0';
};

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
export async function startInProcessExchange(
  env: Record<string, string> = {},
  options: InProcessExchangeOptions = {},
): Promise<InProcessExchange> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-exchange-'));
  const deployDir = options.markets ? editedDevnet(dataDir, options.markets) : join(REPO_ROOT, 'deploy');
  const schema = await createTestSchema();
  const config = loadAppConfig({
    DEPLOY_DIR: deployDir,
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

/** The devnet chain with its markets edited, under `dir`/deploy; returns that deploy directory. */
export function editedDevnet(dir: string, edit: (market: ChainMarketJson) => void): string {
  const deployDir = join(dir, 'deploy');
  cpSync(join(REPO_ROOT, 'deploy/chains/devnet'), join(deployDir, 'chains/devnet'), { recursive: true });
  const file = join(deployDir, 'chains/devnet/chain.json');
  const chain = JSON.parse(readFileSync(file, 'utf8')) as { markets: ChainMarketJson[] };
  chain.markets.forEach(edit);
  writeFileSync(file, JSON.stringify(chain));
  return deployDir;
}
