/**
 * WebSocket fan-out benchmark (issue 15's target), run by `npx nx run exchange:bench` after the
 * order-path one; `BENCH_MODE=short` for CI.
 *
 * One embedded exchange process (as the order-path benchmark starts it). N WebSocket connections
 * (1,000; short: 100), each on the combined path with `bookTicker`, `aggTrade` and diff depth
 * (`@depth@100ms`) of three symbols, spread over loopback addresses (the server allows 300 per IP).
 * Then the signed order flow of signed-orders.ts runs paced at the order-path benchmark's rate,
 * split over the three symbols, and every frame is counted on every connection.
 *
 * Figures, per stream kind, from every SAMPLE-th connection (the others only count frames, so the
 * client's own parsing does not swamp the 2 cores it shares with the server):
 * - eventToSocket: the frame's `E` (the replica rendering the event it read from the log) to its
 *   arrival here; orderToSocket: its `T` (the order's time, stamped at the gateway) to arrival.
 * - order checks: aggTrade ids rise, bookTicker `u` rises, diff depth `pu` = the previous `u`.
 * Loss: connections still open at the end must all have counted the same number of frames.
 *
 * Figures are never enforced; the run fails only when a server does not start or the order flow is
 * refused. The last line is one JSON object with everything.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { checkOrderFlow, newFundedUser, pushIndexPrice, waitUntilIdle } from './bench-users';
import { BENCH_ADMIN_TOKEN, startExchange, stopAllChildren } from './exchange-process';
import { Latencies, type Measured, pacedOrderSource, runPaced } from './load';
import { machine } from './report';
import { type OrderMix, OrderFlow, ResponseTally } from './signed-orders';

const SHORT = process.env.BENCH_MODE === 'short';
const MODE = SHORT ? 'short' : 'full';
const CONNECTIONS = SHORT ? 100 : 1000;
const SAMPLE = 10;
const PER_IP = 250;
const SECONDS = SHORT ? 2 : 10;
/** The order-path benchmark's paced rate. */
const RATE = SHORT ? 100 : 1000;
const DEPOSIT = '100000000';
const MIXES: OrderMix[] = [
  { symbol: 'BTCUSDT', price: '65000', restingPrice: '60000', quantity: '0.001' },
  { symbol: 'ETHUSDT', price: '3500', restingPrice: '3000', quantity: '0.010' },
  { symbol: 'SOLUSDT', price: '150', restingPrice: '120', quantity: '0.50' },
];
const KINDS = ['aggTrade', 'bookTicker', 'depth'] as const;
type Kind = (typeof KINDS)[number];

const T0 = Date.now();
const log = (s: string) => process.stderr.write(`[${((Date.now() - T0) / 1000).toFixed(1)} s] ${s}\n`);

/** What the sampled connections saw, per stream kind. */
class Sampled {
  readonly eventToSocket = new Map<Kind, Latencies>(KINDS.map((k) => [k, new Latencies()]));
  readonly orderToSocket = new Map<Kind, Latencies>(KINDS.map((k) => [k, new Latencies()]));
  outOfOrder = 0;

  figures() {
    const ms = (l: Latencies) => {
      const [p50, p99, p999] = l.percentiles([0.5, 0.99, 0.999]).map((v) => Number(v.toFixed(2)));
      return { frames: l.count, p50Ms: p50, p99Ms: p99, p999Ms: p999 };
    };
    return {
      eventToSocket: Object.fromEntries(KINDS.map((k) => [k, ms(this.eventToSocket.get(k)!)])),
      orderToSocket: Object.fromEntries(KINDS.map((k) => [k, ms(this.orderToSocket.get(k)!)])),
      outOfOrder: this.outOfOrder,
    };
  }
}

interface Client {
  ws: WebSocket;
  frames: number;
  closed?: { code: number; reason: string };
}

function open(url: string, i: number, sampled: Sampled | undefined): Promise<Client> {
  const streams = MIXES.flatMap(({ symbol }) => {
    const s = symbol.toLowerCase();
    return [`${s}@aggTrade`, `${s}@bookTicker`, `${s}@depth@100ms`];
  });
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/stream?streams=${streams.join('/')}`, {
    localAddress: `127.0.0.${1 + Math.floor(i / PER_IP)}`,
  });
  const c: Client = { ws, frames: 0 };
  const last = new Map<string, number>();
  ws.on('message', (data) => {
    c.frames++;
    if (!sampled) return;
    const now = Date.now();
    const { stream, data: d } = JSON.parse(data.toString()) as {
      stream: string;
      data: Record<string, number>;
    };
    const kind: Kind = stream.includes('@aggTrade')
      ? 'aggTrade'
      : stream.includes('@depth')
        ? 'depth'
        : 'bookTicker';
    sampled.eventToSocket.get(kind)!.add(now - d.E!);
    sampled.orderToSocket.get(kind)!.add(now - d.T!);
    const prev = last.get(stream);
    const id = kind === 'aggTrade' ? d.a! : d.u!;
    if (prev !== undefined && (kind === 'depth' ? d.pu !== prev : id <= prev)) sampled.outOfOrder++;
    last.set(stream, id);
  });
  ws.on('close', (code, reason) => (c.closed = { code, reason: reason.toString() }));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(c));
    ws.once('error', reject);
  });
}

async function main(): Promise<void> {
  const repoRoot = process.cwd();
  if (!existsSync(join(repoRoot, 'dist/apps/exchange/src/main.js')))
    throw new Error(`run from the repository root after deploy/scripts/build.sh (cwd: ${repoRoot})`);
  const host = machine();
  log(
    `streams benchmark, ${MODE} mode: ${CONNECTIONS} connections, orders paced at ${RATE}/s for ${SECONDS} s`,
  );
  const ex = await startExchange({ repoRoot, readyTimeoutMs: 60_000 });
  const clients: Client[] = [];
  try {
    const a = await newFundedUser(ex.url, BENCH_ADMIN_TOKEN, DEPOSIT);
    const b = await newFundedUser(ex.url, BENCH_ADMIN_TOKEN, DEPOSIT);
    for (const mix of MIXES) {
      await pushIndexPrice(ex.url, BENCH_ADMIN_TOKEN, mix.symbol, mix.price);
      await checkOrderFlow(ex.url, new OrderFlow(mix, a, b, `check${mix.symbol}`));
    }
    for (const mix of MIXES) await waitUntilIdle(ex.url, [a, b], mix.symbol);

    const sampled = new Sampled();
    const opening = Date.now();
    for (let i = 0; i < CONNECTIONS; i += 50) {
      const batch = [];
      for (let j = i; j < Math.min(i + 50, CONNECTIONS); j++)
        batch.push(open(ex.url, j, j % SAMPLE === 0 ? sampled : undefined));
      clients.push(...(await Promise.all(batch)));
    }
    log(`  ${clients.length} connections open in ${Date.now() - opening} ms`);
    await new Promise((r) => setTimeout(r, 1000)); // the first partial pushes settle
    for (const c of clients) c.frames = 0;

    const tally = new ResponseTally();
    const started = Date.now();
    const rows: Measured[] = await Promise.all(
      MIXES.map((mix) =>
        runPaced({
          url: ex.url,
          rate: RATE / MIXES.length,
          seconds: SECONDS,
          maxSockets: 32,
          source: pacedOrderSource(new OrderFlow(mix, a, b, `ws${mix.symbol}`), tally),
        }),
      ),
    );
    const loadSeconds = (Date.now() - started) / 1000;
    for (const mix of MIXES) await waitUntilIdle(ex.url, [a, b], mix.symbol);
    // Depth windows flush every 100 ms; the fan-out drains what is buffered.
    let before = -1;
    for (;;) {
      await new Promise((r) => setTimeout(r, 500));
      const total = clients.reduce((n, c) => n + c.frames, 0);
      if (total === before) break;
      before = total;
    }
    const drained = (Date.now() - started) / 1000;

    const open_ = clients.filter((c) => !c.closed);
    const counts = open_.map((c) => c.frames);
    const frames = clients.reduce((n, c) => n + c.frames, 0);
    const closes: Record<string, number> = {};
    for (const c of clients)
      if (c.closed)
        closes[`${c.closed.code} ${c.closed.reason}`] =
          (closes[`${c.closed.code} ${c.closed.reason}`] ?? 0) + 1;
    const orders = rows.reduce((n, r) => n + r.responses, 0);
    const result = {
      benchmark: 'streams',
      mode: MODE,
      machine: { ...host, loadAverage1mAtEnd: machine().loadAverage1m },
      connections: CONNECTIONS,
      streamsPerConnection: MIXES.length * 3,
      sampledConnections: Math.ceil(CONNECTIONS / SAMPLE),
      orders: {
        pacedRate: RATE,
        seconds: Number(loadSeconds.toFixed(2)),
        answered: orders,
        perSecond: Number((orders / loadSeconds).toFixed(0)),
        p99Ms: Math.max(...rows.map((r) => r.p99Ms)),
        statuses: tally.statuses,
      },
      fanOut: {
        frames,
        framesPerSecond: Number((frames / drained).toFixed(0)),
        framesPerConnection: { min: Math.min(...counts), max: Math.max(...counts) },
        noLoss: counts.every((n) => n === counts[0]),
        closedDuringRun: closes,
        ...sampled.figures(),
      },
      target: { eventToSocketP99Ms: 50, connections: 1000 },
    };
    console.log(
      `\nStreams, ${MODE} mode, ${host.cpus} × ${host.cpuModel}: ${CONNECTIONS} connections × 9 streams, ` +
        `orders ${result.orders.perSecond}/s; ${frames} frames (${result.fanOut.framesPerSecond}/s), ` +
        `event→socket p99 ${KINDS.map((k) => `${k} ${result.fanOut.eventToSocket[k]!.p99Ms} ms`).join(', ')}; ` +
        `out of order ${sampled.outOfOrder}; same count on every open connection: ${result.fanOut.noLoss}`,
    );
    console.log(JSON.stringify(result));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- ${ex.name} output ---\n${ex.output().slice(-4000)}`, {
      cause: e,
    });
  } finally {
    for (const c of clients) c.ws.terminate();
    await ex.stop();
  }
}

main()
  .then(() => {
    stopAllChildren();
    process.exit(0);
  })
  .catch((e: unknown) => {
    console.error(`streams benchmark failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    stopAllChildren();
    process.exit(1);
  });
