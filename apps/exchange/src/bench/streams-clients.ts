/**
 * The streams benchmark's WebSocket clients, run as a child process of `streams.bench.ts` (forked
 * with an IPC channel) so that receiving 1,000 sockets' frames does not share an event loop with the
 * driver, and the driver's order flow and the clients' parsing do not delay each other.
 *
 * Receive times are `Date.now()` here, compared with the `E` the exchange stamped from the same
 * machine clock. Every connection counts its frames; every SAMPLE-th is a `ws` client that also
 * parses them and records latencies and order checks. The others only count: after the same
 * handshake they read the frames' headers off the socket (frame-counter.ts), because `ws` handing
 * each of ~1,000 sockets' frames to a listener cost this process about 0.6 of a core at 370k frames/s,
 * taken from the two cores the measured server runs on.
 */
import WebSocket from 'ws';
import { openCountingSocket } from './frame-counter';
import { Latencies } from './load';

export const KINDS = ['aggTrade', 'bookTicker', 'depth'] as const;
export type Kind = (typeof KINDS)[number];

/** Parent → child. */
export type ClientCommand =
  | { op: 'open'; url: string; connections: number; sample: number; perIp: number; streams: string[] }
  | { op: 'reset' }
  | { op: 'count' }
  | { op: 'report' }
  | { op: 'close' };

export interface LatencyFigures {
  frames: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
}

export interface ClientReport {
  eventToSocket: Record<Kind, LatencyFigures>;
  orderToSocket: Record<Kind, LatencyFigures>;
  outOfOrder: number;
  /** Frames per kind on one sampled connection. */
  framesByKind: Record<Kind, number>;
  counts: number[];
  closes: Record<string, number>;
  /** This process's CPU time since the last reset, ms, and the wall time it covers. */
  cpuMs: number;
  wallMs: number;
}

/** Child → parent. */
export type ClientReply =
  | { op: 'opened'; ms: number }
  | { op: 'count'; total: number }
  | { op: 'report'; report: ClientReport }
  | { op: 'error'; message: string };

interface Client {
  terminate: () => void;
  frames: number;
  closed?: string;
}

const kindOf = (stream: string): Kind =>
  stream.includes('@aggTrade') ? 'aggTrade' : stream.includes('@depth') ? 'depth' : 'bookTicker';

class Sampled {
  eventToSocket = new Map<Kind, Latencies>(KINDS.map((k) => [k, new Latencies()]));
  orderToSocket = new Map<Kind, Latencies>(KINDS.map((k) => [k, new Latencies()]));
  framesByKind = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
  outOfOrder = 0;
}

const clients: Client[] = [];
let sampled = new Sampled();
let cpuAtReset = process.cpuUsage();
let wallAtReset = Date.now();

function open(url: string, i: number, perIp: number, streams: string[], sample: boolean): Promise<Client> {
  const address = `${url.replace(/^http/, 'ws')}/stream?streams=${streams.join('/')}`;
  const localAddress = `127.0.0.${1 + Math.floor(i / perIp)}`;
  if (!sample) return openCountingSocket(address, localAddress);
  const ws = new WebSocket(address, { localAddress, perMessageDeflate: false });
  const c: Client = { terminate: () => ws.terminate(), frames: 0 };
  const last = new Map<string, number>();
  const first = i === 0;
  ws.on('message', (data) => {
    c.frames++;
    const now = Date.now();
    const { stream, data: d } = JSON.parse(String(data)) as { stream: string; data: Record<string, number> };
    const kind = kindOf(stream);
    sampled.eventToSocket.get(kind)!.add(now - d.E!);
    sampled.orderToSocket.get(kind)!.add(now - d.T!);
    if (first) sampled.framesByKind.set(kind, sampled.framesByKind.get(kind)! + 1);
    const prev = last.get(stream);
    const id = kind === 'aggTrade' ? d.a! : d.u!;
    if (prev !== undefined && (kind === 'depth' ? d.pu !== prev : id <= prev)) sampled.outOfOrder++;
    last.set(stream, id);
  });
  ws.on('close', (code, reason) => (c.closed = `${code} ${String(reason)}`));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(c));
    ws.once('error', reject);
  });
}

function figures(l: Latencies): LatencyFigures {
  const [p50, p99, p999, max] = l.percentiles([0.5, 0.99, 0.999, 1]).map((v) => Number(v.toFixed(2)));
  return { frames: l.count, p50Ms: p50!, p99Ms: p99!, p999Ms: p999!, maxMs: max! };
}

function report(): ClientReport {
  const closes: Record<string, number> = {};
  for (const c of clients) if (c.closed) closes[c.closed] = (closes[c.closed] ?? 0) + 1;
  const cpu = process.cpuUsage(cpuAtReset);
  const byKind = <T>(f: (k: Kind) => T) => Object.fromEntries(KINDS.map((k) => [k, f(k)])) as Record<Kind, T>;
  return {
    eventToSocket: byKind((k) => figures(sampled.eventToSocket.get(k)!)),
    orderToSocket: byKind((k) => figures(sampled.orderToSocket.get(k)!)),
    outOfOrder: sampled.outOfOrder,
    framesByKind: byKind((k) => sampled.framesByKind.get(k)!),
    counts: clients.filter((c) => !c.closed).map((c) => c.frames),
    closes,
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    wallMs: Date.now() - wallAtReset,
  };
}

async function handle(cmd: ClientCommand): Promise<ClientReply | undefined> {
  switch (cmd.op) {
    case 'open': {
      const t0 = Date.now();
      for (let i = 0; i < cmd.connections; i += 50) {
        const batch = [];
        for (let j = i; j < Math.min(i + 50, cmd.connections); j++)
          batch.push(open(cmd.url, j, cmd.perIp, cmd.streams, j % cmd.sample === 0));
        clients.push(...(await Promise.all(batch)));
      }
      return { op: 'opened', ms: Date.now() - t0 };
    }
    case 'reset':
      for (const c of clients) c.frames = 0;
      sampled = new Sampled();
      cpuAtReset = process.cpuUsage();
      wallAtReset = Date.now();
      return { op: 'count', total: 0 };
    case 'count':
      return { op: 'count', total: clients.reduce((n, c) => n + c.frames, 0) };
    case 'report':
      return { op: 'report', report: report() };
    case 'close':
      for (const c of clients) c.terminate();
      process.exit(0);
  }
}

process.on('message', (cmd: ClientCommand) => {
  handle(cmd)
    .then((reply) => reply && process.send!(reply))
    .catch((e: unknown) => process.send!({ op: 'error', message: String(e) }));
});
process.on('disconnect', () => process.exit(0));
