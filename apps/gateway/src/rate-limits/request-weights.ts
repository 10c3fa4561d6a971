import { Inject, Injectable, Logger } from '@nestjs/common';
import { clientIp, type IpList } from '@perp/auth';
import { FapiError } from '@perp/contracts';
import type { IncomingMessage } from 'node:http';
import { RATE_LIMIT_CEILINGS } from './rate-limit-http';
import { intervalWords, type LimitWindow, type RateLimitCeilings, weightWindows } from './rate-limit-rules';
import { type LimitOutcome, WindowLimiter } from './window-limiter';

/** The parsed TRUSTED_PROXIES, for the client address (the same rule as the signed-request guard). */
export const RATE_LIMIT_TRUSTED_PROXIES = Symbol('RATE_LIMIT_TRUSTED_PROXIES');

/**
 * Spends a request's weight in its client IP's window: FapiWeightGuard's work, shared with the
 * gateway's fast lanes so both count the same way. Undefined when the hot store failed (logged):
 * rate limits must not take the API down.
 */
@Injectable()
export class RequestWeights {
  private readonly logger = new Logger('RateLimits');
  /** Windows per client IP (their keys are built from the IP); dropped whole when large. */
  private readonly windows = new Map<string, LimitWindow[]>();

  constructor(
    private readonly limiter: WindowLimiter,
    @Inject(RATE_LIMIT_CEILINGS) private readonly ceilings: RateLimitCeilings,
    @Inject(RATE_LIMIT_TRUSTED_PROXIES) private readonly trustedProxies: IpList,
  ) {}

  ipOf(request: Pick<IncomingMessage, 'socket' | 'headers'>): string {
    return clientIp(request.socket.remoteAddress, request.headers['x-forwarded-for'], this.trustedProxies);
  }

  private windowsOf(ip: string): LimitWindow[] {
    let w = this.windows.get(ip);
    if (w === undefined) {
      if (this.windows.size >= 10_000) this.windows.clear();
      this.windows.set(ip, (w = weightWindows(this.ceilings, ip)));
    }
    return w;
  }

  async spend(ip: string, weight: number): Promise<LimitOutcome | undefined> {
    try {
      return await this.limiter.take(this.windowsOf(ip), weight);
    } catch (e) {
      this.logger.warn(`request weight not counted (hot store): ${String(e)}`);
      return undefined;
    }
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
