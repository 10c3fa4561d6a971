import { type CanActivate, type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { clientIp, type IpList } from '@perp/auth';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { NativeError } from '@perp/contracts';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ceilingsOf,
  loginWindows,
  type RateLimitCeilings,
  retryAfterSeconds,
} from '../../rate-limits/rate-limit-rules';
import { WindowLimiter } from '../../rate-limits/window-limiter';
import { TRUSTED_PROXY_LIST } from '../access-options';

/**
 * Nonce and login requests per client IP per minute (RATE_LIMIT_LOGIN_PER_MIN, both endpoints in
 * one window), counted in the hot store so replicas share it. Past the ceiling: HTTP 429
 * `{error, code: 'RATE_LIMITED'}` with Retry-After, and nothing else happens (no nonce issued, no
 * signature checked). The client IP is `clientIp` with TRUSTED_PROXIES, as for key whitelists. If
 * the hot store fails the request goes through (logged).
 */
@Injectable()
export class LoginRateLimitGuard implements CanActivate {
  private readonly logger = new Logger('LoginRateLimit');
  private readonly limiter: WindowLimiter;
  private readonly ceilings: RateLimitCeilings;

  constructor(
    @Inject(HOT_STORE) hot: HotStore,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(TRUSTED_PROXY_LIST) private readonly trustedProxies: IpList,
  ) {
    this.limiter = new WindowLimiter(hot);
    this.ceilings = ceilingsOf(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const ip = clientIp(
      request.socket.remoteAddress,
      request.headers['x-forwarded-for'],
      this.trustedProxies,
    );
    let outcome;
    try {
      outcome = await this.limiter.take(loginWindows(this.ceilings, ip), 1);
    } catch (e) {
      this.logger.warn(`login rate not counted (hot store): ${String(e)}`);
      return true;
    }
    if (outcome.refused.length === 0) return true;
    const seconds = retryAfterSeconds(outcome.states, outcome.refused);
    void context.switchToHttp().getResponse<FastifyReply>().header('Retry-After', String(seconds));
    throw new NativeError(
      'RATE_LIMITED',
      `Too many login requests from this address: at most ${this.ceilings.loginPerMinute} per minute; retry in ${seconds} s.`,
    );
  }
}
