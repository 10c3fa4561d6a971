/**
 * The benchmark's cluster: gateway, 2 risk, 2 matching-engine, market-data, funding and keeper as
 * child processes from dist/ (as docker-compose.yml runs them), on the Kafka mock (kcat), the
 * Postgres server (a database created beside `BENCH_DATABASE_URL`'s, dropped at the end) and Redis
 * (`BENCH_REDIS_URL`, flushed; by default database 6, which no test suite uses).
 *
 * The load spreads over several user pairs and two symbols, so both risk shards and both engines
 * work: with the single pair of the other rows every order would go through one risk shard and one
 * engine, and the row would measure one hop chain, not the cluster.
 */
import { CLUSTER_APPS, openClusterResources } from '../cluster/cluster-environment';
import { waitUntilIdle } from './bench-users';
import {
  BENCH_ADMIN_TOKEN,
  type ChildServer,
  processCpuMs,
  profileArgs,
  startChild,
} from './exchange-process';
import { type PacedSource, orderFlowRequests, pacedOrderSource } from './load';
import { type ApiKey, type OrderMix, OrderFlow, type ResponseTally } from './signed-orders';
import type autocannon from 'autocannon';
import Redis from 'ioredis';

export const DEFAULT_BENCH_REDIS_URL = 'redis://127.0.0.1:6379/6';

const UNLIMITED = '1000000000';

export interface BenchCluster {
  /** The gateway's URL: where every order goes. */
  url: string;
  /** market-data's URL (its /metrics has the public-market consumer lag). */
  marketDataUrl: string;
  processes: { app: string; server: ChildServer }[];
  /** The Kafka mock's process. */
  mockPid: number | undefined;
  /** CPU time (ms) of each process so far, by `app#i`, and of the Kafka mock (`kcat`). */
  cpuMs(): Record<string, number>;
  stop(): Promise<void>;
}

export interface BenchClusterOptions {
  repoRoot: string;
  databaseUrl: string;
  redisUrl: string;
  readyTimeoutMs: number;
  log: (line: string) => void;
}

/** Starts the eight processes at once (each retries its way through the topic race: issue 18). */
export async function startBenchCluster(o: BenchClusterOptions): Promise<BenchCluster> {
  const resources = await openClusterResources({
    name: 'bench_cluster',
    databaseUrl: o.databaseUrl,
    redisUrl: o.redisUrl,
    adminToken: BENCH_ADMIN_TOKEN,
    env: {
      LOG_LEVEL: 'warn',
      // The mock holds an empty fetch for the whole wait, even when data arrives meanwhile: at
      // 100 ms (the default, for a broker) each idle hop of an order's five would add 50 ms on average.
      KAFKA_FETCH_MAX_WAIT_MS: process.env.KAFKA_FETCH_MAX_WAIT_MS ?? '10',
      PRICE_SOURCE: 'admin',
      RATE_LIMIT_WEIGHT_PER_MIN: UNLIMITED,
      RATE_LIMIT_ORDERS_PER_10S: UNLIMITED,
      RATE_LIMIT_ORDERS_PER_MIN: UNLIMITED,
    },
  });
  o.log(`  kafka mock at ${resources.kafka.brokers.join(',')}`);
  const processes: { app: string; server: ChildServer }[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => p.server.stop().catch(() => undefined)));
    await resources.close();
  };
  try {
    const started = await Promise.allSettled(
      CLUSTER_APPS.map(async (app, i) => {
        const server = await startChild({
          name: `${app}#${i}`,
          script: `${o.repoRoot}/dist/apps/${app}/src/main.js`,
          nodeArgs: profileArgs(app),
          env: resources.env,
          cwd: o.repoRoot,
          readyTimeoutMs: o.readyTimeoutMs,
        });
        processes.push({ app: `${app}#${i}`, server });
      }),
    );
    const failed = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason).slice(0, 3000)] : []));
    if (failed.length) throw new Error(`cluster did not start:\n${failed.join('\n')}`);
  } catch (e) {
    await stop();
    throw e;
  }
  const find = (app: string) => processes.find((p) => p.app.startsWith(`${app}#`))!.server;
  return {
    url: find('gateway').url,
    marketDataUrl: find('market-data').url,
    processes,
    mockPid: resources.kafka.pid,
    cpuMs: () => {
      const out: Record<string, number> = {};
      for (const p of processes) out[p.app] = processCpuMs(p.server.pid) ?? 0;
      out.kcat = processCpuMs(resources.kafka.pid) ?? 0;
      return out;
    },
    stop,
  };
}

/** Each process's CPU use (% of one core) over `ms` while nothing is sent: the cost of polling. */
export async function idleCpuPercent(cluster: BenchCluster, ms: number): Promise<Record<string, number>> {
  const before = cluster.cpuMs();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const after = cluster.cpuMs();
  const elapsed = performance.now() - t0;
  return Object.fromEntries(
    Object.keys(after).map((k) => [k, Number(((100 * (after[k]! - before[k]!)) / elapsed).toFixed(1))]),
  );
}

/** The cluster's markets: two symbols, so that both engines can have work. */
export const CLUSTER_MIXES: OrderMix[] = [
  { symbol: 'BTCUSDT', price: '65000', restingPrice: '60000', quantity: '0.001' },
  { symbol: 'ETHUSDT', price: '3500', restingPrice: '3000', quantity: '0.002' },
];

/** User pairs of the cluster rows, alternating over CLUSTER_MIXES. */
export const CLUSTER_PAIRS = 4;

export interface ClusterPair {
  mix: OrderMix;
  a: ApiKey;
  b: ApiKey;
}

/** Each pair's order flow, one per pair, with client order ids tagged by row and pair. */
export function clusterFlows(pairs: ClusterPair[], tag: string): OrderFlow[] {
  return pairs.map((p, i) => new OrderFlow(p.mix, p.a, p.b, `${tag}${i}`));
}

/** Connection i runs pair i mod n's flow, started at its own step. */
export function clusterConnectionRequests(
  flows: OrderFlow[],
  tally: ResponseTally,
): (connection: number) => autocannon.Request[] {
  return (i) => orderFlowRequests(flows[i % flows.length]!, tally, Math.floor(i / flows.length));
}

/** The paced schedule takes its requests from the pairs in turn. */
export function clusterPacedSource(flows: OrderFlow[], tally: ResponseTally): PacedSource {
  const sources = flows.map((f) => pacedOrderSource(f, tally));
  let i = 0;
  return { next: () => sources[i++ % sources.length]!.next() };
}

/** Waits until every pair's commands left in flight are handled (see waitUntilIdle). */
export async function waitUntilClusterIdle(url: string, pairs: ClusterPair[]): Promise<void> {
  await Promise.all(pairs.map((p) => waitUntilIdle(url, [p.a, p.b], p.mix.symbol)));
}

/** Why Redis at `url` cannot be used (undefined when it answers a PING). */
export async function redisUnreachable(url: string): Promise<string | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (e) {
    return `Redis unreachable at ${url}: ${(e as Error).message}`;
  } finally {
    redis.disconnect();
  }
}
