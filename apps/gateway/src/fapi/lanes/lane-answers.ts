import { errorEnvelope, type Metrics } from '@perp/runtime';
import type { ServerResponse } from 'node:http';
import { LEGACY_WEIGHT_HEADER } from '../../rate-limits/rate-limit-rules';
import type { LimitOutcome } from '../../rate-limits/window-limiter';

/** What the fast lanes share: headers, bodies and metrics as Fastify, Nest and the filter make them. */

export const JSON_UTF8 = 'application/json; charset=utf-8';

/** Lower-case response header names of the rate-limit windows (a handful). */
const headerNames = new Map<string, string>();
const lower = (name: string) => {
  let l = headerNames.get(name);
  if (l === undefined) headerNames.set(name, (l = name.toLowerCase()));
  return l;
};

/**
 * The windows' counts as `name, value` pairs, as setCountHeaders puts them on a reply; with
 * `legacyWeight`, the unsuffixed weight header too (FapiWeightGuard's).
 */
export function countHeaderPairs(outcome: LimitOutcome, legacyWeight: boolean): string[] {
  // countHeaders' pairs, without its object: this runs once per answer.
  const out: string[] = [];
  const { windows, states } = outcome;
  for (let i = 0; i < windows.length; i++) {
    const header = windows[i]!.header;
    if (header) out.push(lower(header), String(states[i]!.count));
  }
  if (legacyWeight && out.length > 0) out.push(lower(LEGACY_WEIGHT_HEADER), out[1]!);
  return out;
}

/** ErrorEnvelopeFilter's status and body for `error`. */
export function errorAnswer(error: unknown, method: string, url: string): [number, Buffer] {
  const [status, envelope] = errorEnvelope(error, { method, url });
  return [status, Buffer.from(JSON.stringify(envelope))];
}

/** Writes a JSON answer with `headers` (`name, value` pairs, extended here) in one go. */
export function writeJson(res: ServerResponse, status: number, headers: string[], body: Buffer): void {
  headers.push('content-type', JSON_UTF8, 'content-length', String(body.length));
  res.writeHead(status, headers);
  res.end(body);
}

/** The request-duration histogram's series per method, route and status, counted in place. */
export class LaneTimers {
  private readonly timers = new Map<string, (seconds: number) => void>();

  constructor(private readonly metrics: Metrics) {}

  of(method: string, route: string, status: number): (seconds: number) => void {
    const key = `${status} ${method} ${route}`;
    let timer = this.timers.get(key);
    if (timer === undefined) {
      const labels = { method, route, status: String(status) };
      this.timers.set(key, (timer = this.metrics.httpRequestTally.series(labels)));
    }
    return timer;
  }
}
