import { Inject, Injectable, Logger } from '@nestjs/common';
import { clientIp, type IpList } from '@perp/auth';
import { FapiError } from '@perp/contracts';
import { rawHeader } from '@perp/runtime';
import type { IncomingMessage } from 'node:http';
import { RATE_LIMIT_CEILINGS } from './rate-limit-http';
import { intervalWords, type LimitWindow, type RateLimitCeilings, weightWindows } from './rate-limit-rules';
import { WindowLeases } from './window-leases';
import type { LimitOutcome } from './window-limiter';

/** The parsed TRUSTED_PROXIES, for the client address (the same rule as the signed-request guard). */
export const RATE_LIMIT_TRUSTED_PROXIES = Symbol('RATE_LIMIT_TRUSTED_PROXIES');

/**
 * Spends a request's weight in its client IP's window: FapiWeightGuard's work, shared with the
 * gateway's fast lanes so both count the same way. The window is spent from this replica's lease
 * (WindowLeases: a busy client's request is counted without a hot-store round trip). Undefined when
 * the hot store failed (logged): rate limits must not take the API down.
 */
@Injectable()
export class RequestWeights {
  private readonly logger = new Logger('RateLimits');
  /** Windows per client IP (their keys are built from the IP); dropped whole when large. */
  private readonly windows = new Map<string, readonly [LimitWindow]>();

  constructor(
    private readonly leases: WindowLeases,
    @Inject(RATE_LIMIT_CEILINGS) private readonly ceilings: RateLimitCeilings,
    @Inject(RATE_LIMIT_TRUSTED_PROXIES) private readonly trustedProxies: IpList,
  ) {}

  /** A connection's address when its requests carry no X-Forwarded-For (kept alive, it asks again). */
  private readonly direct = new WeakMap<object, string>();

  ipOf(request: Pick<IncomingMessage, 'socket' | 'rawHeaders'>): string {
    const forwarded = rawHeader(request, 'x-forwarded-for');
    if (forwarded !== undefined)
      return clientIp(request.socket.remoteAddress, forwarded, this.trustedProxies);
    let ip = this.direct.get(request.socket);
    if (ip === undefined) {
      ip = clientIp(request.socket.remoteAddress, undefined, this.trustedProxies);
      if (ip !== '') this.direct.set(request.socket, ip);
    }
    return ip;
  }

  private windowsOf(ip: string): readonly [LimitWindow] {
    let w = this.windows.get(ip);
    if (w === undefined) {
      if (this.windows.size >= 10_000) this.windows.clear();
      const [only, ...more] = weightWindows(this.ceilings, ip);
      if (only === undefined || more.length > 0) throw new Error('request weight has one window');
      this.windows.set(ip, (w = [only]));
    }
    return w;
  }

  /** The outcome at once when this replica's lease covers the weight, else once the store answered. */
  spend(ip: string, weight: number): LimitOutcome | undefined | Promise<LimitOutcome | undefined> {
    const taken = this.leases.take(this.windowsOf(ip), weight);
    return taken instanceof Promise ? taken.catch((e: unknown) => this.failed(e)) : taken;
  }

  private failed(e: unknown): undefined {
    this.logger.warn(`request weight not counted (hot store): ${String(e)}`);
    return undefined;
  }
}

/** -1003 (HTTP 429) of a refused outcome, in Binance's words; undefined when admitted. */
export function weightRefusal(outcome: LimitOutcome, ip: string): FapiError | undefined {
  if (outcome.refused.length === 0) return undefined;
  const window = outcome.windows[outcome.refused[0]!]!;
  return new FapiError(
    'TOO_MANY_REQUESTS',
    `Too much request weight used; current limit of IP(${ip}) is ${window.limit} request weight per ` +
      `${intervalWords(window.windowMs)}. Please use the websocket for live updates to avoid polling the API.`,
  );
}
