import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningApp, signed, startAppProcess } from '@perp/testing';
import { adminRequest, deposit, newTrader, type Trader } from '../trading/trading.harness';
import {
  burstPlan,
  checkMoney,
  checkOrders,
  checkTrades,
  INDEX_PRICES,
  type Outcome,
  readUser,
  runBurst,
  type UserState,
} from './kill-during-burst.harness';

const ADMIN_TOKEN = 'kill-burst-admin-token-0123456789';
const USERS = 4;
const DEPOSIT = '100000';
/** A fifth user, funded for a few orders only: the rest of its orders are refused for margin. */
const POOR_DEPOSIT = '30';
const ORDERS = 320;
const CONCURRENCY = 32;
const KILL_AFTER_ACKS = 64;
const SEED = 20_240_611;
/** A first start initialises the embedded Postgres: tens of seconds on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 90_000;

// Issue 11's durability claim with real processes: the embedded exchange (memory bus journaled in
// DATA_DIR, PGlite, memory hot store) is killed with SIGKILL while 32 signed orders are in flight;
// after a restart on the same directory every acknowledged order is there, exactly once, with its
// id, and nothing that was refused or never sent; trades and balances add up.
describe('kill -9 of the embedded exchange during a burst of concurrent orders', () => {
  const apps: RunningApp[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-burst-'));
  // Embedded mode is the absence of these: a developer's shell must not turn it into a cluster.
  const clusterVars = ['DATABASE_URL', 'REDIS_URL', 'BUS', 'KAFKA_BROKERS'];
  const saved = Object.fromEntries(clusterVars.map((k) => [k, process.env[k]]));

  beforeAll(() => {
    for (const k of clusterVars) delete process.env[k];
  });

  afterAll(async () => {
    for (const a of apps) await a.stop('SIGKILL').catch(() => undefined);
    for (const k of clusterVars) if (saved[k] !== undefined) process.env[k] = saved[k];
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds every acknowledged order, and nothing else, after restart', async () => {
    const env = {
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      // Two cores shared with other work: a 503 would turn an answer into an unknown.
      UPSTREAM_TIMEOUT_MS: '60000',
      RATE_LIMIT_WEIGHT_PER_MIN: '1000000',
      RATE_LIMIT_ORDERS_PER_10S: '1000000',
      RATE_LIMIT_ORDERS_PER_MIN: '1000000',
    };
    const first = await startAppProcess('exchange', env, READY_TIMEOUT_MS);
    apps.push(first);
    const traders: Trader[] = [];
    for (let u = 0; u <= USERS; u++) traders.push(await newTrader(first.url, undefined, `burst-${u}`));
    for (const [symbol, indexPrice] of Object.entries(INDEX_PRICES)) {
      const r = await adminRequest(first.url, ADMIN_TOKEN, `/prices/${symbol}`, 'POST', { indexPrice });
      expect(r.status).toBe(200);
    }
    const deposits = traders.map((_, u) => (u < USERS ? DEPOSIT : POOR_DEPOSIT));
    for (const [u, t] of traders.entries()) await deposit(first.url, ADMIN_TOKEN, t.address, deposits[u]);

    const plan = burstPlan(ORDERS, traders.length, `kb${Date.now().toString(36)}`, SEED);
    const { outcomes, inFlightAtKill } = await runBurst({
      url: first.url,
      traders,
      plan,
      concurrency: CONCURRENCY,
      killAfterAcks: KILL_AFTER_ACKS,
      kill: () => first.child.kill('SIGKILL'),
    });
    await first.stop('SIGKILL');
    const count = (kind: Outcome['kind']) => outcomes.filter((o) => o.kind === kind).length;
    const counts = {
      acked: count('acked'),
      refused: count('refused'),
      unknown: count('unknown'),
      unsent: count('unsent'),
    };
    const refusedCodes: Record<string, number> = {};
    for (const o of outcomes)
      if (o.kind === 'refused') refusedCodes[String(o.code)] = (refusedCodes[String(o.code)] ?? 0) + 1;
    const unknownErrors = [...new Set(outcomes.flatMap((o) => (o.kind === 'unknown' ? [o.error] : [])))];
    process.stdout.write(
      `burst: ${JSON.stringify({ ...counts, refusedCodes, unknownErrors, inFlightAtKill })}\n`,
    );
    // The kill came on an acknowledgement, with refusals among the answers before it.
    expect(counts.acked).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(counts.refused).toBeGreaterThan(0);
    expect(counts.unsent + counts.unknown).toBeGreaterThan(0);

    const second = await startAppProcess('exchange', env, READY_TIMEOUT_MS);
    apps.push(second);
    const states: UserState[] = [];
    for (const t of traders) states.push(await readUser(second.url, t));

    const problems: string[] = [];
    checkOrders(plan, outcomes, states, problems);
    // The single-order query finds each acknowledged order by its client id, with the same id.
    for (const [i, p] of plan.entries()) {
      const o = outcomes[i];
      if (o.kind !== 'acked') continue;
      const r = await signed(second.url, '/fapi/v1/order', traders[p.user].key, {
        params: { symbol: p.params.symbol, origClientOrderId: p.clientOrderId, recvWindow: '60000' },
      });
      if (r.status !== 200 || r.body.orderId !== o.orderId)
        problems.push(`${p.clientOrderId}: GET order answered ${r.status} ${r.text.slice(0, 200)}`);
    }
    const trades = checkTrades(states, problems);
    const fees = checkMoney(states, deposits, trades, problems);
    const found = new Set(states.flatMap((s) => s.orders.map((o) => o.clientOrderId)));
    const unknownFound = plan.filter((p, i) => outcomes[i].kind === 'unknown' && found.has(p.clientOrderId));
    const summary = { unknownFound: unknownFound.length, trades, fees: fees.toFixed() };
    process.stdout.write(`after restart: ${JSON.stringify(summary)}\n`);
    expect(problems).toEqual([]);
    expect(trades).toBeGreaterThan(0);
    await second.stop();
  }, 240_000);
});
