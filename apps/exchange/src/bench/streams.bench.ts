/**
 * WebSocket fan-out benchmark (issue 15's target), run by `npx nx run exchange:bench` after the
 * order-path one; `BENCH_MODE=short` for CI.
 *
 * One embedded exchange process (as the order-path benchmark starts it). N WebSocket connections
 * (1,000; short: 100), each on the combined path with `bookTicker`, `aggTrade` and diff depth
 * (`@depth@100ms`) of three symbols, spread over loopback addresses (the server allows 300 per IP).
 * The connections live in a child process (streams-clients.ts), so their receiving does not share
 * this driver's event loop. The signed order flow of signed-orders.ts runs paced at the order-path
 * benchmark's rate, split over the three symbols: first with no connection open (the rate the order
 * path reaches alone, same run), then with the N connections, counting every frame on every one.
 *
 * Figures, per stream kind, from every SAMPLE-th connection (the others only count frames):
 * - eventToSocket: the frame's `E` to its arrival (`Date.now()` in the client process, the same
 *   machine clock). `E` of trades, aggTrades and book tickers is the time the engine's event was
 *   appended to the log (its bus timestamp), so the figure covers the gateway's read of the log,
 *   rendering, fan-out and the socket; `E` of diff depth is the end of its 100 ms window (the window
 *   itself is the stream's declared speed, not latency).
 * - orderToSocket: its `T` (the order's time, stamped at the gateway when the order came in) to
 *   arrival: the whole order path included.
 * - order checks: aggTrade ids rise, bookTicker `u` rises, diff depth `pu` = the previous `u`.
 * Loss: connections still open at the end must all have counted the same number of frames.
 *
 * Figures are never enforced; the run fails only when a server does not start or the order flow is
 * refused. The last line is one JSON object with everything.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkOrderFlow, newFundedUser, pushIndexPrice, waitUntilIdle } from './bench-users';
import {
  BENCH_ADMIN_TOKEN,
  type ChildServer,
  processCpuMs,
  startExchange,
  stopAllChildren,
} from './exchange-process';
import { parsePrometheusText } from '@perp/testing';
import { type Measured, pacedOrderSource, runPaced } from './load';
import { lagBetween, lagHistogram } from './scraped-histogram';
import { machine } from './report';
import { type ApiKey, type OrderMix, OrderFlow, ResponseTally } from './signed-orders';
import type { ClientCommand, ClientReply, ClientReport } from './streams-clients';
import { KINDS } from './streams-clients';

const SHORT = process.env.BENCH_MODE === 'short';
const MODE = SHORT ? 'short' : 'full';
const CONNECTIONS = SHORT ? 100 : 1000;
const SAMPLE = 10;
const PER_IP = 250;
const SECONDS = SHORT ? 2 : 10;
/**
 * The order-path benchmark's paced rate; `BENCH_STREAMS_RATE` sets another (the fan-out's latency
 * below the rate where the order path itself queues).
 */
const RATE = Number(process.env.BENCH_STREAMS_RATE ?? (SHORT ? 100 : 1000));
if (!Number.isInteger(RATE) || RATE < 3)
  throw new Error(
    `BENCH_STREAMS_RATE must be an integer of at least 3 (one order a second per symbol), not ${RATE}`,
  );
const DEPOSIT = '100000000';
const MIXES: OrderMix[] = [
  { symbol: 'BTCUSDT', price: '65000', restingPrice: '60000', quantity: '0.001' },
  { symbol: 'ETHUSDT', price: '3500', restingPrice: '3000', quantity: '0.010' },
  { symbol: 'SOLUSDT', price: '150', restingPrice: '120', quantity: '0.50' },
];
const STREAMS = MIXES.flatMap(({ symbol }) => {
  const s = symbol.toLowerCase();
  return [`${s}@aggTrade`, `${s}@bookTicker`, `${s}@depth@100ms`];
});

const T0 = Date.now();
const log = (s: string) => process.stderr.write(`[${((Date.now() - T0) / 1000).toFixed(1)} s] ${s}\n`);

const scrape = async (url: string) => parsePrometheusText(await (await fetch(`${url}/metrics`)).text());

/** The client process, one request at a time. */
class Clients {
  private readonly child: ChildProcess;
  private waiting: ((r: ClientReply) => void) | undefined;
  private failed: Error | undefined;

  constructor() {
    this.child = fork(join(__dirname, 'streams-clients.js'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (r: ClientReply) => {
      const w = this.waiting;
      this.waiting = undefined;
      if (r.op === 'error') this.failed = new Error(`client process: ${r.message}`);
      w?.(r);
    });
    this.child.on('exit', (code) => {
      this.failed ??= new Error(`client process exited (${code})`);
      this.waiting?.({ op: 'error', message: this.failed.message });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async ask<R extends ClientReply['op']>(
    cmd: ClientCommand,
    op: R,
  ): Promise<Extract<ClientReply, { op: R }>> {
    if (this.failed) throw this.failed;
    const reply = await new Promise<ClientReply>((resolve) => {
      this.waiting = resolve;
      this.child.send(cmd);
    });
    if (reply.op !== op) throw this.failed ?? new Error(`client process answered ${reply.op}`);
    return reply as Extract<ClientReply, { op: R }>;
  }

  close(): void {
    if (this.child.connected) this.child.send({ op: 'close' });
    setTimeout(() => this.child.kill('SIGKILL'), 2000).unref();
  }
}

/** The paced order flow on the three symbols at RATE in all, for SECONDS. */
async function orderFlow(url: string, a: ApiKey, b: ApiKey, tag: string) {
  const tally = new ResponseTally();
  const started = Date.now();
  const rows: Measured[] = await Promise.all(
    MIXES.map((mix) =>
      runPaced({
        url,
        rate: RATE / MIXES.length,
        seconds: SECONDS,
        maxSockets: 32,
        source: pacedOrderSource(new OrderFlow(mix, a, b, `${tag}${mix.symbol}`), tally),
      }),
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  const answered = rows.reduce((n, r) => n + r.responses, 0);
  return {
    pacedRate: RATE,
    seconds: Number(seconds.toFixed(2)),
    answered,
    perSecond: Number((answered / seconds).toFixed(0)),
    notSent: rows.reduce((n, r) => n + (r.notSent ?? 0), 0),
    p50Ms: Math.max(...rows.map((r) => r.p50Ms)),
    p99Ms: Math.max(...rows.map((r) => r.p99Ms)),
    statuses: tally.statuses,
  };
}

async function main(): Promise<void> {
  const repoRoot = process.cwd();
  if (!existsSync(join(repoRoot, 'dist/apps/exchange/src/main.js')))
    throw new Error(`run from the repository root after deploy/scripts/build.sh (cwd: ${repoRoot})`);
  const host = machine();
  log(
    `streams benchmark, ${MODE} mode: ${CONNECTIONS} connections, orders paced at ${RATE}/s for ${SECONDS} s`,
  );
  const ex: ChildServer = await startExchange({ repoRoot, readyTimeoutMs: 60_000 });
  const clients = new Clients();
  try {
    const a = await newFundedUser(ex.url, BENCH_ADMIN_TOKEN, DEPOSIT);
    const b = await newFundedUser(ex.url, BENCH_ADMIN_TOKEN, DEPOSIT);
    for (const mix of MIXES) {
      await pushIndexPrice(ex.url, BENCH_ADMIN_TOKEN, mix.symbol, mix.price);
      await checkOrderFlow(ex.url, new OrderFlow(mix, a, b, `check${mix.symbol}`));
    }
    for (const mix of MIXES) await waitUntilIdle(ex.url, [a, b], mix.symbol);

    // The order path alone, same run: what the fan-out costs it shows against this.
    let cpu0 = processCpuMs(ex.pid);
    const alone = await orderFlow(ex.url, a, b, 'alone');
    const aloneCpuMs = (processCpuMs(ex.pid) ?? 0) - (cpu0 ?? 0);
    for (const mix of MIXES) await waitUntilIdle(ex.url, [a, b], mix.symbol);
    log(`  order flow alone: ${alone.perSecond}/s answered (asked ${RATE}/s)`);

    const { ms } = await clients.ask(
      { op: 'open', url: ex.url, connections: CONNECTIONS, sample: SAMPLE, perIp: PER_IP, streams: STREAMS },
      'opened',
    );
    log(`  ${CONNECTIONS} connections open in ${ms} ms (client process ${clients.pid})`);
    await new Promise((r) => setTimeout(r, 1000)); // the first partial pushes settle
    await clients.ask({ op: 'reset' }, 'count');

    cpu0 = processCpuMs(ex.pid);
    // This scrape also restarts the exchange's event-loop delay histogram (prom-client's).
    const lag0 = lagHistogram(await scrape(ex.url));
    const started = Date.now();
    const orders = await orderFlow(ex.url, a, b, 'ws');
    for (const mix of MIXES) await waitUntilIdle(ex.url, [a, b], mix.symbol);
    // Depth windows flush every 100 ms; the fan-out drains what is buffered.
    let before = -1;
    for (;;) {
      await new Promise((r) => setTimeout(r, 500));
      const { total } = await clients.ask({ op: 'count' }, 'count');
      if (total === before) break;
      before = total;
    }
    const drained = (Date.now() - started) / 1000;
    const end = await scrape(ex.url);
    const lag = lagBetween(lag0, lagHistogram(end));
    const loopMs = (name: string) =>
      Number((Math.max(0, ...end.filter((x) => x.name === name).map((x) => x.value)) * 1000).toFixed(1));
    const serverEventLoopDelay = {
      p50Ms: loopMs('nodejs_eventloop_lag_p50_seconds'),
      p99Ms: loopMs('nodejs_eventloop_lag_p99_seconds'),
      maxMs: loopMs('nodejs_eventloop_lag_max_seconds'),
    };
    const serverCpuMs = (processCpuMs(ex.pid) ?? 0) - (cpu0 ?? 0);
    const { report }: { report: ClientReport } = await clients.ask({ op: 'report' }, 'report');
    log(`  order flow with ${CONNECTIONS} connections: ${orders.perSecond}/s answered`);

    const frames = report.counts.reduce((n, c) => n + c, 0);
    const result = {
      benchmark: 'streams',
      mode: MODE,
      machine: { ...host, loadAverage1mAtEnd: machine().loadAverage1m },
      connections: CONNECTIONS,
      streamsPerConnection: STREAMS.length,
      sampledConnections: Math.ceil(CONNECTIONS / SAMPLE),
      ordersAlone: { ...alone, serverCpuMs: aloneCpuMs },
      orders,
      marketDataLag: lag,
      fanOut: {
        frames,
        framesPerSecond: Number((frames / drained).toFixed(0)),
        framesPerConnection: { min: Math.min(...report.counts), max: Math.max(...report.counts) },
        framesByKindOnOneConnection: report.framesByKind,
        noLoss: report.counts.length === CONNECTIONS && report.counts.every((n) => n === report.counts[0]),
        closedDuringRun: report.closes,
        eventToSocket: report.eventToSocket,
        orderToSocket: report.orderToSocket,
        outOfOrder: report.outOfOrder,
        serverCpuMs,
        serverEventLoopDelay,
        serverCpuUsPerFrame: Number(((serverCpuMs * 1000) / Math.max(frames, 1)).toFixed(2)),
        clientProcessCpuShare: Number((report.cpuMs / report.wallMs).toFixed(2)),
      },
      target: { eventToSocketP99Ms: 50, connections: 1000 },
    };
    console.log(
      `\nStreams, ${MODE} mode, ${host.cpus} × ${host.cpuModel}, load ${host.loadAverage1m} → ${result.machine.loadAverage1mAtEnd}: ` +
        `${CONNECTIONS} connections × ${STREAMS.length} streams; orders asked ${RATE}/s, answered ${alone.perSecond}/s alone, ` +
        `${orders.perSecond}/s with the connections; ${frames} frames (${result.fanOut.framesPerSecond}/s), ` +
        `event→socket p50/p99 ${KINDS.map((k) => `${k} ${report.eventToSocket[k].p50Ms}/${report.eventToSocket[k].p99Ms} ms`).join(', ')}; ` +
        `out of order ${report.outOfOrder}; same count on every open connection: ${result.fanOut.noLoss}; ` +
        `server event-loop delay p99 ${serverEventLoopDelay.p99Ms} ms; market data lag per turn mean ${lag.meanMs} ms`,
    );
    console.log(JSON.stringify(result));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- ${ex.name} output ---\n${ex.output().slice(-4000)}`, {
      cause: e,
    });
  } finally {
    clients.close();
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
