import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { type IndexSourceStatus, readIndexSourceStatus } from '@perp/contracts';
import { http, nativeError } from '@perp/testing';
// The market-data EVM fixture is test-only (solc, @ethereumjs), so it has no entry point of its own.
// eslint-disable-next-line no-restricted-imports
import { type MockAggregator, TestChain } from '../../../market-data/src/prices/__fixtures__/test-chain';
import { editedDevnet, type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';

const S = (ms: number) => BigInt(Math.floor(ms / 1000));

/** Polls the hot store until the feed has written a status matching `done` (or 10 s passed). */
async function statusUntil(
  hot: HotStore,
  done: (s: IndexSourceStatus | undefined) => boolean,
): Promise<IndexSourceStatus | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await readIndexSourceStatus(hot, 'BTCUSDT');
    if (done(s) || Date.now() > deadline) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
}

// The composite index feed (PRICE_SOURCE=composite) of the embedded exchange reads a Chainlink
// aggregator on an in-process EVM: while its round is stale, BTCUSDT's price is unavailable.
describe('composite index feed with a stale source (embedded exchange, in-process EVM)', () => {
  let chain: TestChain;
  let aggregator: MockAggregator;
  let dir: string;
  let ex: InProcessExchange;

  beforeAll(async () => {
    chain = await TestChain.start(31337);
    aggregator = await chain.deployAggregator(8);
    // Two hours old: beyond the source's maxAgeSeconds.
    await aggregator.setRound(1, 5000000000000n, S(Date.now() - 7_200_000));
    dir = mkdtempSync(join(tmpdir(), 'price-unavailable-'));
    const deployDir = editedDevnet(dir, (m) => {
      if (m.symbol === 'BTCUSDT')
        m.indexSources = {
          sources: [{ kind: 'chainlink', address: aggregator.address, maxAgeSeconds: 3600 }],
        };
    });
    const file = join(deployDir, 'chains/devnet/chain.json');
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...json, rpcUrl: await chain.serve() }));
    ex = await startInProcessExchange({
      DEPLOY_DIR: deployDir,
      PRICE_SOURCE: 'composite',
      PRICE_FEED_INTERVAL_MS: '50',
    });
  });

  afterAll(async () => {
    await ex?.close();
    await chain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('503 PRICE_DATA_UNAVAILABLE while the source is stale; 200 once a fresh round is read', async () => {
    const hot = ex.app.get<HotStore>(HOT_STORE);
    expect(await statusUntil(hot, (s) => s !== undefined)).toMatchObject({
      status: 'UNAVAILABLE',
      reason: 'NO_FRESH_SOURCE',
    });
    const stale = await http(`${ex.url}/api/v1/funding-rates/BTCUSDT`);
    expect({ status: stale.status, body: stale.body }).toEqual({
      status: 503,
      body: nativeError('PRICE_DATA_UNAVAILABLE'),
    });
    const premium = await http(`${ex.url}/fapi/v1/premiumIndex?symbol=BTCUSDT`);
    expect({ status: premium.status, body: premium.body.code }).toEqual({ status: 500, body: -1001 });

    await aggregator.setRound(2, 5000000000000n, S(Date.now()));
    expect(await statusUntil(hot, (s) => s?.status === 'AVAILABLE')).toMatchObject({ price: '50000' });
    expect((await http(`${ex.url}/api/v1/funding-rates/BTCUSDT`)).status).toBe(200);
    expect((await http(`${ex.url}/fapi/v1/premiumIndex?symbol=BTCUSDT`)).status).toBe(200);
  });
});
