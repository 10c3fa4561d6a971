// Issue 18's fault harness: the multi-process cluster on the Kafka mock under a mixed order load,
// one process of a random kind killed with SIGKILL and restarted per round, then the checks.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '@perp/domain';
import { type RunningApp, signed } from '@perp/testing';
import { TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { adminRequest, deposit, newTrader, type Trader } from '../trading/trading.harness';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster-environment.harness';
import {
  burstPlan,
  checkMoney,
  checkOrders,
  checkTrades,
  classify,
  INDEX_PRICES,
  type Outcome,
  type PlannedOrder,
  readUser,
  type UserState,
} from './kill-during-burst.harness';

export const KILLABLE = ['matching-engine', 'risk', 'market-data', 'gateway'] as const;
export type Killable = (typeof KILLABLE)[number];

/** The cluster under test: two of each shard and of the gateway, so a kill always leaves one. */
const CLUSTER: Killable[] = [
  'gateway',
  'gateway',
  'risk',
  'risk',
  'matching-engine',
  'matching-engine',
  'market-data',
];

export interface FaultOptions {
  rounds: number;
  /** Pause between one restart being ready and the next kill. */
  intervalMs: number;
  users: number;
  /** Most orders a user sends (its history must fit one page of 1000). */
  ordersPerUser: number;
  seed: number;
  /** Kinds of process killed (default every kind in KILLABLE). */
  apps?: readonly Killable[];
  /** Redis database of the run (cluster-environment.harness.ts lists who uses which). */
  redisDb: number;
  /** SIGKILL (default: a crash) or SIGTERM (a rolling restart: partitions handed over on the way out). */
  signal?: 'SIGKILL' | 'SIGTERM';
  /** Extra environment of every process (consumer tuning, timeouts). */
  env?: Record<string, string>;
  log?: (line: string) => void;
  /** Where to write every process's output (killed ones included), for a failed run's diagnosis. */
  logDir?: string;
}

export interface KillRecord {
  round: number;
  app: Killable;
  /** Milliseconds since the load started. */
  at: number;
  /** How long the replacement took to answer /readyz. */
  restartMs: number;
  /**
   * Engine and risk kills: when every group of the dead member had its partitions served again, by
   * a survivor or by the replacement (whichever gained them first), and when the dead member was
   * evicted, in ms after the kill (from the hand-over log lines of the app's processes).
   */
  handOver?: { servedMs: number; evictedMs?: number; groups: number };
}

export interface Stall {
  user: number;
  from: number;
  to: number;
}

export interface FaultReport {
  sent: number;
  outcomes: Record<Outcome['kind'], number>;
  /** HTTP status of every 5xx answer, counted. */
  serverErrors: Record<string, number>;
  kills: KillRecord[];
  /** Per user, the longest time between two answered orders (latency included). */
  longestStallMs: number[];
  /** Every gap between two answered orders of a user over 2 s, in ms since the load started. */
  stalls: Stall[];
  trades: number;
  fees: string;
  /** What the checks found wrong; empty on a good run. */
  problems: string[];
  durationMs: number;
}

const DEPOSIT = '1000000';
const SETTLE_MS = 60_000;

/** Runs the cluster, the load and the kill rounds; stops everything before returning. */
export async function runFaultRounds(o: FaultOptions): Promise<FaultReport> {
  const log = o.log ?? (() => undefined);
  const cluster = await openClusterEnvironment('faults', o.redisDb, {
    // Session, heartbeat and leader sync delay: the cluster environment's (3 s, 300 ms, 200 ms).
    KAFKA_REBALANCE_TIMEOUT_MS: process.env.KAFKA_REBALANCE_TIMEOUT_MS ?? '3000',
    // A killed process's members are evicted once its Redis connection is gone (0: session timeout only).
    KAFKA_MEMBER_WATCH_MS: process.env.KAFKA_MEMBER_WATCH_MS ?? '250',
    // Hand-over lines ("group G: gained [..]") are logged at this level: the report times them.
    LOG_LEVEL: 'log',
    RATE_LIMIT_WEIGHT_PER_MIN: '1000000',
    RATE_LIMIT_ORDERS_PER_10S: '1000000',
    RATE_LIMIT_ORDERS_PER_MIN: '1000000',
    ...o.env,
  });
  try {
    return await run(cluster, o, log);
  } finally {
    await cluster.close();
  }
}

async function run(
  cluster: ClusterEnvironment,
  o: FaultOptions,
  log: (l: string) => void,
): Promise<FaultReport> {
  const began = Date.now();
  const running = new Map<Killable, RunningApp[]>(KILLABLE.map((k) => [k, []]));
  const started: { app: Killable; process: RunningApp }[] = [];
  const start = async (app: Killable) => {
    const process = await cluster.start(app, 120_000);
    started.push({ app, process });
    return process;
  };
  try {
    return await rounds(o, log, began, running, start);
  } finally {
    if (o.logDir) {
      mkdirSync(o.logDir, { recursive: true });
      for (const [i, { app, process }] of started.entries())
        writeFileSync(join(o.logDir, `${String(i).padStart(2, '0')}-${app}.log`), process.output());
    }
  }
}

async function rounds(
  o: FaultOptions,
  log: (l: string) => void,
  began: number,
  running: Map<Killable, RunningApp[]>,
  start: (app: Killable) => Promise<RunningApp>,
): Promise<FaultReport> {
  await Promise.all(CLUSTER.map(async (app) => running.get(app)!.push(await start(app))));
  log(`cluster ready in ${Date.now() - began} ms: ${CLUSTER.join(', ')}`);
  const gateways = running.get('gateway')!;
  let turn = 0;
  /** A live gateway, in turns: a worker whose gateway died takes the next. */
  const gateway = () => gateways[turn++ % gateways.length]!.url;

  const traders: Trader[] = [];
  for (let u = 0; u < o.users; u++) traders.push(await newTrader(gateway(), undefined, `fault-${u}`));
  for (const [symbol, indexPrice] of Object.entries(INDEX_PRICES)) {
    const r = await adminRequest(gateway(), TEST_ADMIN_TOKEN, `/prices/${symbol}`, 'POST', { indexPrice });
    if (r.status !== 200) throw new Error(`index price ${symbol}: ${r.status} ${r.text}`);
  }
  const deposits = traders.map(() => DEPOSIT);
  for (const t of traders) await deposit(gateway(), TEST_ADMIN_TOKEN, t.address, DEPOSIT);

  const tag = `f${Date.now().toString(36)}`;
  const plan = burstPlan(o.users * o.ordersPerUser, o.users, tag, o.seed);
  const outcomes: Outcome[] = plan.map(() => ({ kind: 'unsent' }));
  const serverErrors: Record<string, number> = {};
  const load = startLoad(plan, traders, gateway, outcomes, serverErrors);
  log(`load started: ${o.users} users`);

  const random = mulberry32(o.seed ^ 0x5eed);
  const kills: KillRecord[] = [];
  const witnessesOf = new Map<KillRecord, RunningApp[]>();
  const handOvers = new Map<KillRecord, number>();
  for (let round = 1; round <= o.rounds; round++) {
    await sleep(o.intervalMs);
    const kinds = o.apps ?? KILLABLE;
    const app = kinds[random() % kinds.length]!;
    const list = running.get(app)!;
    const victim = list.splice(random() % list.length, 1)[0]!;
    const survivors = [...list];
    const killedAt = Date.now();
    const at = killedAt - load.startedAt;
    await victim.stop(o.signal ?? 'SIGKILL');
    const restarting = Date.now();
    const replacement = await start(app);
    list.push(replacement);
    const restartMs = Date.now() - restarting;
    const kill: KillRecord = { round, app, at, restartMs };
    kills.push(kill);
    // A replacement that joins within the eviction's rebalance takes the dead member's share itself.
    witnessesOf.set(kill, [...survivors, replacement]);
    handOvers.set(kill, killedAt);
    log(`round ${round}: ${o.signal ?? 'SIGKILL'} ${app} at +${at} ms, replacement ready in ${restartMs} ms`);
  }
  await sleep(o.intervalMs);
  const { sent, longestStallMs, stalls } = await load.stop();
  // Orders the load never reached stay `unsent` in `outcomes`; they are not counted as refused connections.
  const neverTried = plan.length - sent;
  log(`load stopped: ${sent} orders sent`);

  // The projections trail the log: read until the checks pass or the time is up.
  const deadline = Date.now() + SETTLE_MS;
  let problems: string[];
  let trades: number;
  let fees: string;
  for (;;) {
    problems = [];
    const states: UserState[] = [];
    for (const t of traders) states.push(await readUser(gateway(), t));
    checkOrders(plan, outcomes, states, problems);
    trades = checkTrades(states, problems);
    fees = checkMoney(states, deposits, trades, problems).toFixed();
    if (problems.length === 0 || Date.now() > deadline) break;
    await sleep(1_000);
  }
  const killTimes = [...handOvers.values()];
  for (const [i, [kill, killedAt]] of [...handOvers].entries()) {
    if (kill.app === 'risk' || kill.app === 'matching-engine')
      kill.handOver = handOver(witnessesOf.get(kill)!, killedAt, killTimes[i + 1] ?? killedAt + 60_000);
  }
  const count = (kind: Outcome['kind']) => outcomes.filter((x) => x.kind === kind).length;
  return {
    sent,
    outcomes: {
      acked: count('acked'),
      refused: count('refused'),
      unknown: count('unknown'),
      unsent: count('unsent') - neverTried,
    },
    serverErrors,
    kills,
    longestStallMs,
    stalls,
    trades,
    fees,
    problems,
    durationMs: Date.now() - began,
  };
}

/**
 * From the logs of the survivors and the replacement: per group, the first hand-over that gained
 * partitions after the kill (logged once onAssigned restored them); served = the last group's, so
 * every partition of the dead member is served again. Evicted: the first line saying its process
 * is gone.
 */
function handOver(processes: RunningApp[], killedAt: number, until: number): KillRecord['handOver'] {
  const firstGain = new Map<string, number>();
  let evicted: number | undefined;
  for (const p of processes) {
    for (const line of p.output().split('\n')) {
      if (!line.includes('"group ')) continue;
      let entry: { timestamp?: number; message?: string };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      const { timestamp: t, message = '' } = entry;
      if (t === undefined || t < killedAt || t >= until) continue;
      const gained = /^group (\S+): gained \[([^\]]+)\]/.exec(message);
      if (gained && !firstGain.has(gained[1]!)) firstGain.set(gained[1]!, t - killedAt);
      if (/process is gone: evicted/.test(message) && evicted === undefined) evicted = t - killedAt;
    }
  }
  if (!firstGain.size) return undefined;
  return { servedMs: Math.max(...firstGain.values()), evictedMs: evicted, groups: firstGain.size };
}

/**
 * One worker per user sends that user's orders one after another through the live gateways,
 * recording each outcome and the longest gap between two answered orders of the user.
 */
function startLoad(
  plan: PlannedOrder[],
  traders: Trader[],
  gateway: () => string,
  outcomes: Outcome[],
  serverErrors: Record<string, number>,
) {
  const startedAt = Date.now();
  let stopping = false;
  let sent = 0;
  const longest = traders.map(() => 0);
  const stalls: Stall[] = [];
  const answered = (user: number, last: number) => {
    const now = Date.now();
    longest[user] = Math.max(longest[user]!, now - last);
    if (now - last > 2_000) stalls.push({ user, from: last - startedAt, to: now - startedAt });
    return now;
  };
  const worker = async (user: number) => {
    let last = Date.now();
    for (const [i, p] of plan.entries()) {
      if (stopping) break;
      if (p.user !== user) continue;
      sent++;
      try {
        const r = await signed(gateway(), '/fapi/v1/order', traders[user]!.key, {
          method: 'POST',
          params: p.params,
        });
        outcomes[i] = classify(r);
        if (r.status >= 500) serverErrors[r.status] = (serverErrors[r.status] ?? 0) + 1;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        outcomes[i] =
          code === 'ECONNREFUSED' ? { kind: 'unsent' } : { kind: 'unknown', error: String(code ?? e) };
      }
      if (outcomes[i]!.kind === 'acked' || outcomes[i]!.kind === 'refused') last = answered(user, last);
    }
    answered(user, last);
  };
  const workers = Promise.all(traders.map((_, u) => worker(u)));
  return {
    startedAt,
    async stop() {
      stopping = true;
      await workers;
      return { sent, longestStallMs: longest, stalls };
    },
  };
}

/** The report as the lines a run prints. */
export function formatReport(r: FaultReport): string {
  const kinds = Object.entries(
    r.kills.reduce<Record<string, number>>((m, k) => ({ ...m, [k.app]: (m[k.app] ?? 0) + 1 }), {}),
  )
    .map(([app, n]) => `${app} ×${n}`)
    .join(', ');
  const stalls = r.longestStallMs.map((ms) => (ms / 1000).toFixed(1));
  const fivexx = Object.entries(r.serverErrors)
    .map(([s, n]) => `${s} ×${n}`)
    .join(', ');
  return [
    `fault harness: ${r.kills.length} kill rounds (${kinds || 'none'}) in ${(r.durationMs / 1000).toFixed(0)} s`,
    `orders sent ${r.sent}: acknowledged ${r.outcomes.acked}, refused ${r.outcomes.refused}, unknown ${r.outcomes.unknown}, unsent ${r.outcomes.unsent}`,
    `trades ${r.trades}, fees ${r.fees}`,
    `acknowledged orders present exactly once, no duplicate fill id, long = short per symbol, wallets + fees = deposits: ${r.problems.length === 0 ? 'ok' : `${r.problems.length} problems`}`,
    `longest stall per user (s): ${stalls.join(' ')} (max ${Math.max(...stalls.map(Number)).toFixed(1)})`,
    `5xx answers: ${fivexx || 'none'}`,
    ...r.kills.map(
      (k) =>
        `  round ${k.round}: ${k.app} killed at +${(k.at / 1000).toFixed(1)} s, replacement ready at +${((k.at + k.restartMs) / 1000).toFixed(1)} s` +
        (k.handOver
          ? `; its ${k.handOver.groups} groups served again after ${(k.handOver.servedMs / 1000).toFixed(1)} s` +
            (k.handOver.evictedMs === undefined
              ? ' (no eviction: it left, or its session timed out)'
              : ` (evicted after ${(k.handOver.evictedMs / 1000).toFixed(1)} s)`)
          : ''),
    ),
    ...r.stalls.map(
      (x) =>
        `  user ${x.user} stalled from +${(x.from / 1000).toFixed(1)} s to +${(x.to / 1000).toFixed(1)} s`,
    ),
    ...r.problems.slice(0, 50).map((p) => `  problem: ${p}`),
  ].join('\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
