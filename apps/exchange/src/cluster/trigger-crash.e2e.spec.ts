import { signed } from '@perp/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editedDevnet, noInterest, TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader, type Trader } from '../trading/trading.harness';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster-environment.harness';

const BTC = 'BTCUSDT';
const TRADERS = 4;
const PER_TRADER = 3;
/** Its own Redis database among the multi-process suites' (see cluster-environment.harness.ts). */
const REDIS_DB = Number(process.env.TRIGGER_CRASH_REDIS_DB ?? 10);

interface AlgoView {
  algoId: number;
  algoStatus: string;
  actualOrderId: string;
}

// The crash test: the risk shards hold the waiting algo orders; each is killed (SIGKILL)
// in turn while a mark that fires some of them is on its way, and restarts from its snapshot and
// the log while the next marks come. Every trigger fires exactly once: each algo order ends FINISHED with one order, and the
// positions are what one fill per trigger makes.
describe('algo triggers across a killed risk shard (real processes, Kafka mock)', () => {
  let cluster: ClusterEnvironment | undefined;
  // Marks are market data's: without interest, a mark pushed with no book around it is the index.
  const deployDir = editedDevnet(mkdtempSync(join(tmpdir(), 'perp-trigger-crash-')), noInterest);

  afterAll(async () => {
    await cluster?.close();
    rmSync(deployDir, { recursive: true, force: true });
  }, 60_000);

  it('fires each trigger exactly once', async () => {
    cluster = await openClusterEnvironment('triggers', REDIS_DB, {
      RISK_SNAPSHOT_EVERY: '3',
      RISK_SNAPSHOT_MIN_INTERVAL_MS: '0',
      DEPLOY_DIR: deployDir,
    });
    const start = (app: string) => cluster!.start(app);
    const [gateway, , r0, r1] = await cluster.startAll([
      'gateway',
      'matching-engine',
      'risk',
      'risk',
      'market-data',
    ]);
    const risks = [r0, r1];
    const url = gateway.url;
    const mark = async (indexPrice: string) =>
      expect(
        (await adminRequest(url, TEST_ADMIN_TOKEN, `/prices/${BTC}`, 'POST', { indexPrice })).status,
      ).toBe(200);
    const post = (t: Trader, path: string, params: Record<string, string>) =>
      signed(url, path, t.key, { method: 'POST', params: { symbol: BTC, ...params } });

    const maker = await newTrader(url);
    const traders: Trader[] = [];
    for (let i = 0; i < TRADERS; i++) traders.push(await newTrader(url));
    for (const t of [maker, ...traders]) await deposit(url, TEST_ADMIN_TOKEN, t.address, '100000');
    await mark('50000');
    // Liquidity for every fired BUY: a resting ask far above the triggers.
    const ask = await eventually(
      () => post(maker, '/fapi/v1/order', { side: 'SELL', type: 'LIMIT', price: '52000', quantity: '1' }),
      (r) => r.status === 200,
      60_000,
    );
    expect(ask.status).toBe(200);

    // Triggers at 50010, 50020, ...: trader i's k-th at 50000 + 10 x (k x TRADERS + i + 1).
    const algos: [Trader, number][] = [];
    for (let k = 0; k < PER_TRADER; k++)
      for (let i = 0; i < TRADERS; i++) {
        const triggerPrice = String(50000 + 10 * (k * TRADERS + i + 1));
        const r = await eventually(
          () =>
            post(traders[i]!, '/fapi/v1/algoOrder', {
              side: 'BUY',
              type: 'STOP_MARKET',
              triggerPrice,
              quantity: '0.01',
              clientAlgoId: `crash-${k}-${i}`,
            }),
          (x) => x.status === 200 || x.status === 400,
          60_000,
        );
        expect(r.status).toBe(200);
        algos.push([traders[i]!, r.body.algoId as number]);
      }

    const steps = TRADERS * PER_TRADER;
    // Each risk shard in turn, so the one holding a given trigger is surely among them.
    const kills = new Map([
      [Math.floor(steps / 3), 0],
      [Math.floor((2 * steps) / 3), 1],
    ]);
    for (let s = 1; s <= steps; s++) {
      const indexPrice = String(50000 + 10 * s);
      const victim = kills.get(s);
      if (victim === undefined) {
        await mark(indexPrice);
        continue;
      }
      // The risk shard dies while this mark is on its way to the triggers it holds, and restarts
      // from its snapshot and the log. The push may answer 503: published, not yet applied.
      const pushed = adminRequest(url, TEST_ADMIN_TOKEN, `/prices/${BTC}`, 'POST', { indexPrice });
      await risks[victim]!.stop('SIGKILL');
      risks[victim] = await start('risk');
      expect([200, 503]).toContain((await pushed).status);
    }

    for (const [t, algoId] of algos) {
      const a = await eventually(
        async () =>
          (await signed(url, '/fapi/v1/algoOrder', t.key, { params: { algoId: String(algoId) } }))
            .body as AlgoView,
        (v) => v.algoStatus === 'FINISHED',
        120_000,
      );
      expect(a).toMatchObject({ algoStatus: 'FINISHED' });
      expect(a.actualOrderId).not.toBe('');
    }
    const positionAmt = async (t: Trader) => {
      const rows = (await signed(url, '/fapi/v2/positionRisk', t.key, { params: { symbol: BTC } })).body as {
        positionAmt: string;
      }[];
      return Number(rows[0]?.positionAmt ?? '0');
    };
    for (const t of traders)
      expect(
        await eventually(
          () => positionAmt(t),
          (v) => v === 0.03,
          60_000,
        ),
      ).toBe(0.03);
    expect(
      await eventually(
        () => positionAmt(maker),
        (v) => v === -0.12,
        60_000,
      ),
    ).toBe(-0.12);
  }, 600_000);
});
