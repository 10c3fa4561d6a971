import { HOT_STORE, type HotStore } from '@perp/cache';
import { accountProjectionOf, HOT_KEYS, userIdForAddress } from '@perp/contracts';
import { Account } from '@perp/domain';
import { IncomeRepository, openDataSource, TradeRepository } from '@perp/persistence';
import type { HttpResponse } from '@perp/testing';
import { startInProcessExchange, TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster-environment.harness';
import {
  fund,
  runStep,
  type ScriptStep,
  type ScriptTrader,
  scriptTraders,
  tradingScript,
  untilEveryRiskPartitionAnswers,
} from './trading-script.harness';

/** What the test compares between runs, per user: exact strings. */
interface UserOutcome {
  wallet: string;
  frozen: string;
  positions: Record<string, string>;
  openOrders: number;
  trades: number;
  income: string;
  incomeRows: number;
}

type Outcome = Record<string, UserOutcome>;

async function outcome(
  traders: ScriptTrader[],
  readAccount: (address: string) => Promise<Record<string, string>>,
  trades: TradeRepository,
  income: IncomeRepository,
): Promise<Outcome> {
  const out: Outcome = {};
  for (const t of traders) {
    const p = accountProjectionOf(await readAccount(t.address));
    const a = p ? Account.fromState(p.state) : new Account(t.address);
    const userId = userIdForAddress(t.address);
    const rows = await income.listByUser(userId, { limit: 1000 });
    out[t.address] = {
      wallet: a.walletBalance.toFixed(),
      frozen: a.frozenMargin().toFixed(),
      positions: Object.fromEntries(a.positions().map((x) => [x.symbol, x.size.toFixed()])),
      openOrders: p?.orders.length ?? 0,
      trades: (await trades.listByUser(userId, { limit: 1000 })).length,
      income: rows.reduce((s, r) => s + Number(r.income) * 1e8, 0).toFixed(0),
      incomeRows: rows.length,
    };
  }
  return out;
}

async function settle(
  read: () => Promise<Outcome>,
  expected?: Outcome,
  timeoutMs = 30_000,
): Promise<Outcome> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const next = await read();
    const same = JSON.stringify(next) === JSON.stringify(last);
    const done = expected ? JSON.stringify(next) === JSON.stringify(expected) : same;
    if (done || Date.now() > deadline) return next;
    last = next;
  }
}

/** A step is accepted (200) or refused by a rule (400); anything else leaves its outcome unknown. */
function expectAnswered(step: ScriptStep, r: HttpResponse): void {
  if (r.status !== 200 && r.status !== 400)
    throw new Error(`step ${JSON.stringify(step)} answered ${r.status}: ${r.text}`);
}

// DESIGN.md's exactly-once claim, tested with real processes over the Kafka mock cluster: a risk
// shard and an engine shard are killed mid-session and restarted from their snapshots; the final
// accounts, positions, trades and income equal those of an uninterrupted run of the same session.
describe('crash and replay: killed risk and engine shards (real processes, Kafka mock)', () => {
  const script = tradingScript();
  let reference: Outcome;
  let cluster: ClusterEnvironment | undefined;

  afterAll(() => cluster?.close());

  it('runs the session once without a crash (the reference)', async () => {
    const ex = await startInProcessExchange();
    try {
      const traders = await scriptTraders(ex.url);
      await fund(ex.url, ex.adminToken, traders);
      for (const step of script) {
        expectAnswered(step, await runStep(ex.url, ex.adminToken, traders, step));
      }
      const hot = ex.app.get<HotStore>(HOT_STORE);
      reference = await settle(() =>
        outcome(
          traders,
          (a) => hot.hgetall(HOT_KEYS.account(a)),
          ex.app.get(TradeRepository),
          ex.app.get(IncomeRepository),
        ),
      );
      const totalTrades = Object.values(reference).reduce((s, u) => s + u.trades, 0);
      expect(totalTrades).toBeGreaterThan(10);
      expect(Object.values(reference).some((u) => Object.keys(u.positions).length > 0)).toBe(true);
    } finally {
      await ex.close();
    }
  }, 60_000);

  it('gives the same accounts after kill -9 of a risk shard and an engine shard mid-session', async () => {
    cluster = await openClusterEnvironment('crash', 13, {
      RISK_SNAPSHOT_EVERY: '5',
      ENGINE_SNAPSHOT_EVERY: '5',
      RISK_SNAPSHOT_MIN_INTERVAL_MS: '0',
      ENGINE_SNAPSHOT_MIN_INTERVAL_MS: '0',
    });
    const { redis, env } = cluster;
    const dbUrl = env.DATABASE_URL!;
    const [gateway, e0, e1, r0, r1] = await cluster.startAll([
      'gateway',
      'matching-engine',
      'matching-engine',
      'risk',
      'risk',
      'market-data',
    ]);
    const engines = [e0, e1];
    const risks = [r0, r1];
    const url = gateway.url;
    const traders = await scriptTraders(url);
    await fund(url, TEST_ADMIN_TOKEN, traders);
    await untilEveryRiskPartitionAnswers(url, traders);

    const half = Math.floor(script.length / 2);
    for (const step of script.slice(0, half)) {
      const r = await runStep(url, TEST_ADMIN_TOKEN, traders, step);
      expectAnswered(step, r);
    }
    // Mid-stream: the makers' settlement copies may still be in flight.
    await risks[0].stop('SIGKILL');
    await engines[0].stop('SIGKILL');
    [risks[0], engines[0]] = await cluster.startAll(['risk', 'matching-engine']);
    await untilEveryRiskPartitionAnswers(url, traders);
    for (const step of script.slice(half)) {
      const r = await runStep(url, TEST_ADMIN_TOKEN, traders, step);
      expectAnswered(step, r);
    }

    const ds = await openDataSource(dbUrl, { poolSize: 2 });
    try {
      const prefix = 'perp:devnet:';
      const actual = await settle(
        () =>
          outcome(
            traders,
            (a) => redis.hgetall(`${prefix}${HOT_KEYS.account(a)}`),
            new TradeRepository(ds.manager),
            new IncomeRepository(ds.manager),
          ),
        reference,
        60_000,
      );
      expect(actual).toEqual(reference);
    } finally {
      await ds.destroy();
    }
  }, 300_000);
});
