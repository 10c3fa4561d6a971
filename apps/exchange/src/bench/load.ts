/**
 * Load generation for the benchmark rows.
 *
 * - Closed loop: autocannon, N connections each sending its next request when the previous answer
 *   arrives. Also autocannon's `overallRate` pacing, which is not an even schedule: each connection
 *   sends its quota for the second back to back when the second starts, then waits (lib/httpClient.js);
 *   its row is kept because it is what `autocannon -R` users see.
 * - Paced open loop: requests due at an even schedule (rate/s), sent from a keep-alive pool whatever
 *   the answers do; latency counts from the moment each request was due, so a server that falls behind
 *   shows it (no coordinated omission). Requests still waiting for a socket when the time is up are
 *   reported as `notSent`.
 *
 * Latencies are kept in full (fractional ms) rather than read from autocannon's histogram, which
 * records whole milliseconds and so cannot tell 0.3 ms from 0.9 ms.
 */
import { Agent, request as httpRequest } from 'node:http';
import autocannon from 'autocannon';
import {
  CANCEL_STEP,
  CYCLE_LENGTH,
  type OrderFlow,
  RESTING_STEP,
  type ResponseTally,
  type WireRequest,
} from './signed-orders';

/** Response times in ms, kept whole to compute exact percentiles. */
export class Latencies {
  private values = new Float64Array(1 << 16);
  count = 0;

  add(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }

  /** p in [0, 1]; 0 when empty. */
  percentiles(ps: number[]): number[] {
    const sorted = this.values.subarray(0, this.count).slice().sort();
    return ps.map((p) => (this.count ? sorted[Math.min(this.count - 1, Math.floor(this.count * p))] : 0));
  }
}

export interface Measured {
  seconds: number;
  /** Answers received (any status). */
  responses: number;
  /** 2xx answers per second. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Paced open loop only: requests due that never got a socket before the time was up. */
  notSent?: number;
}

export function measured(
  lat: Latencies,
  seconds: number,
  responses: number,
  non2xx: number,
  errors: number,
): Measured {
  const [p50, p99, p999] = lat.percentiles([0.5, 0.99, 0.999]);
  const round = (x: number) => Number(x.toFixed(3));
  return {
    seconds: round(seconds),
    responses,
    perSecond: round((responses - non2xx) / seconds),
    p50Ms: round(p50),
    p99Ms: round(p99),
    p999Ms: round(p999),
    non2xx,
    errors,
  };
}

const asCannon = (w: WireRequest, base: autocannon.Request): autocannon.Request => ({
  ...base,
  method: w.method,
  path: w.path,
  headers: w.headers,
  body: w.body,
});

/**
 * The order flow as autocannon's per-connection request sequence, signed as each request is sent.
 * `rotation` starts the crossing orders at another step (the resting order and its cancel stay last,
 * so the cancel always finds its order in the connection's context), so that connections started
 * together do not all send A's order, then all B's: one user's orders are handled one at a time.
 */
export function orderFlowRequests(
  flow: OrderFlow,
  tally?: ResponseTally,
  rotation = 0,
): autocannon.Request[] {
  const onResponse = tally ? (status: number, body: string) => tally.record(status, body) : undefined;
  type Ctx = { clientOrderId?: string };
  const steps: autocannon.Request[] = [];
  for (let i = 0; i < CYCLE_LENGTH; i++) {
    let setupRequest: (req: autocannon.Request, ctx: object) => autocannon.Request;
    if (i === RESTING_STEP)
      setupRequest = (req, ctx) => {
        const r = flow.resting();
        (ctx as Ctx).clientOrderId = r.clientOrderId;
        return asCannon(r.request, req);
      };
    else if (i === CANCEL_STEP)
      setupRequest = (req, ctx) => asCannon(flow.cancel((ctx as Ctx).clientOrderId ?? ''), req);
    else {
      const step = (i + rotation) % RESTING_STEP;
      setupRequest = (req) => asCannon(flow.crossing(step), req);
    }
    steps.push(onResponse ? { setupRequest, onResponse } : { setupRequest });
  }
  return steps;
}

export interface CannonSpec {
  url: string;
  connections: number;
  seconds: number;
  requests: autocannon.Request[];
  /** Connection i's own sequence instead of `requests`. */
  perConnection?: (i: number) => autocannon.Request[];
  /** autocannon's `overallRate` (bursts at each second's start, see above). */
  overallRate?: number;
  /** Where the 2xx latencies go (several runs measured as one row); a fresh one by default. */
  latencies?: Latencies;
}

/** One autocannon run. */
export function runCannon(spec: CannonSpec): Promise<Measured> {
  const lat = spec.latencies ?? new Latencies();
  let connection = 0;
  const perConnection = spec.perConnection;
  const setupClient = perConnection && ((c: autocannon.Client) => c.setRequests(perConnection(connection++)));
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.seconds,
        requests: spec.requests,
        overallRate: spec.overallRate,
        setupClient,
        timeout: 20,
      },
      (err, result) => {
        if (err) return reject(err);
        resolve(measured(lat, result.duration, result.requests.total, result.non2xx, result.errors));
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) lat.add(responseTime);
    });
  });
}

/** What the paced loop sends next; `done` sees each answer. */
export interface PacedSource {
  next(): { request: WireRequest; done?: (status: number, body: string) => void };
}

/**
 * The order flow for the open loop, where answers come back in any order: step i of the global
 * sequence is step i mod 6 of the cycle, and a cancel takes the oldest resting order already
 * acknowledged (with none acknowledged yet, it places one more resting order instead).
 */
export function pacedOrderSource(flow: OrderFlow, tally?: ResponseTally): PacedSource {
  const acknowledged: string[] = [];
  let i = 0;
  const resting = () => {
    const r = flow.resting();
    return {
      request: r.request,
      done: (status: number, body: string) => {
        tally?.record(status, body);
        if (status === 200) acknowledged.push(r.clientOrderId);
      },
    };
  };
  const record = (status: number, body: string) => tally?.record(status, body);
  return {
    next: () => {
      const step = i++ % CYCLE_LENGTH;
      if (step === RESTING_STEP) return resting();
      if (step === CANCEL_STEP) {
        const id = acknowledged.shift();
        return id === undefined ? resting() : { request: flow.cancel(id), done: record };
      }
      return { request: flow.crossing(step), done: record };
    },
  };
}

export interface PacedSpec {
  url: string;
  /** Requests per second, evenly spaced. */
  rate: number;
  seconds: number;
  /** Keep-alive sockets at most (requests beyond wait for one, their clock running). */
  maxSockets: number;
  source: PacedSource;
}

/** Open loop at an even rate; see the module comment. */
export function runPaced(spec: PacedSpec): Promise<Measured> {
  const { hostname, port } = new URL(spec.url);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.maxSockets });
  const lat = new Latencies();
  const total = Math.round(spec.rate * spec.seconds);
  const interval = 1000 / spec.rate;
  let sent = 0;
  let inFlight = 0;
  let responses = 0;
  let non2xx = 0;
  let errors = 0;
  let t0 = 0;
  let stopped = false;

  return new Promise((resolve) => {
    // Elapsed until the last answer: the requests sent late are answered after the schedule ends.
    const finish = () => {
      agent.destroy();
      const seconds = Math.max(spec.seconds, (performance.now() - t0) / 1000);
      resolve({ ...measured(lat, seconds, responses, non2xx, errors), notSent: total - sent });
    };
    const settle = () => {
      inFlight--;
      pump();
      if (stopped && inFlight === 0) finish();
    };
    const fire = (index: number) => {
      const due = t0 + index * interval;
      const { request, done } = spec.source.next();
      inFlight++;
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
      const req = httpRequest(
        { hostname, port, method: request.method, path: request.path, headers, agent, timeout: 20_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            responses++;
            if (status >= 200 && status < 300) lat.add(performance.now() - due);
            else non2xx++;
            done?.(status, Buffer.concat(chunks).toString('utf8'));
            settle();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        errors++;
        settle();
      });
      req.end(request.body);
    };
    // Sends every request that is due, as long as a socket is free.
    const pump = () => {
      if (stopped) return;
      const due = Math.min(total, Math.floor((performance.now() - t0) / interval) + 1);
      while (sent < due && inFlight < spec.maxSockets) fire(sent++);
    };
    t0 = performance.now();
    const timer = setInterval(pump, 1);
    setTimeout(() => {
      pump();
      stopped = true;
      clearInterval(timer);
      if (inFlight === 0) finish();
    }, spec.seconds * 1000);
  });
}
