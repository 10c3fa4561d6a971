import { type CanActivate, type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { clientIp, type IpList } from '@perp/auth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fapiParams } from '../access/signed/fapi-params';
import { SIGNED_ENDPOINT, type SignedEndpoint } from '../access/signed/signed';
import { RATE_LIMIT_CEILINGS, setCountHeaders, tooManyRequests } from './rate-limit-http';
import {
  amountOf,
  type CountRule,
  DEFAULT_WEIGHT,
  intervalWords,
  isFapiPath,
  pathOf,
  PUBLIC_WEIGHTS,
  type RateLimitCeilings,
  weightWindows,
} from './rate-limit-rules';
import { FAPI_WEIGHT } from './weight.decorator';
import { WindowLimiter } from './window-limiter';

/** The parsed TRUSTED_PROXIES, for the client address (the same rule as the signed-request guard). */
export const RATE_LIMIT_TRUSTED_PROXIES = Symbol('RATE_LIMIT_TRUSTED_PROXIES');

/**
 * Request weight per client IP per minute on every FAPI route (`/fapi/…`, `/futures/…`), public
 * and signed, counted before authentication as Binance does (a request with a bad signature
 * still spends its weight). Registered as a global guard, so it runs before `@Signed()`'s guard;
 * other paths pass untouched. Every FAPI answer, error or not, carries `X-MBX-USED-WEIGHT-1M`
 * (and `X-MBX-USED-WEIGHT`); past the ceiling the answer is HTTP 429 -1003 with Retry-After and
 * the handler does not run. If the hot store fails the request is let through (logged): rate
 * limits must not take the API down.
 */
@Injectable()
export class FapiWeightGuard implements CanActivate {
  private readonly logger = new Logger('RateLimits');

  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: WindowLimiter,
    @Inject(RATE_LIMIT_CEILINGS) private readonly ceilings: RateLimitCeilings,
    @Inject(RATE_LIMIT_TRUSTED_PROXIES) private readonly trustedProxies: IpList,
  ) {}

  /** Route pattern -> its path (a route's pattern is fixed, so this is bounded by the routes). */
  private readonly paths = new Map<string, string>();
  /** Handler -> class -> the weight its decorators declare (undefined: none); metadata is static. */
  private readonly declared = new WeakMap<object, WeakMap<object, { rule: CountRule | undefined }>>();

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const path = this.pathOfRequest(request);
    if (!isFapiPath(path)) return true;
    const reply = http.getResponse<FastifyReply>();
    const weight = amountOf(this.ruleOf(context, path), () => fapiParams(request), DEFAULT_WEIGHT);
    const ip = clientIp(
      request.socket.remoteAddress,
      request.headers['x-forwarded-for'],
      this.trustedProxies,
    );
    let outcome;
    try {
      outcome = await this.limiter.take(weightWindows(this.ceilings, ip), weight);
    } catch (e) {
      this.logger.warn(`request weight not counted (hot store): ${String(e)}`);
      return true;
    }
    setCountHeaders(reply, outcome, true);
    if (outcome.refused.length === 0) return true;
    const window = outcome.windows[outcome.refused[0]!]!;
    throw tooManyRequests(
      reply,
      outcome,
      `Too much request weight used; current limit of IP(${ip}) is ${window.limit} request weight per ` +
        `${intervalWords(window.windowMs)}. Please use the websocket for live updates to avoid polling the API.`,
    );
  }

  private pathOfRequest(request: FastifyRequest): string {
    const pattern = request.routeOptions?.url;
    if (pattern === undefined) return pathOf(request.url);
    let path = this.paths.get(pattern);
    if (path === undefined) this.paths.set(pattern, (path = pathOf(pattern)));
    return path;
  }

  /** `@Signed({ weight })`, else `@Weight()`, else the spec's table by route, else 1. */
  private ruleOf(context: ExecutionContext, path: string): CountRule {
    return (
      this.declaredRule(context.getHandler(), context.getClass()) ?? PUBLIC_WEIGHTS[path] ?? DEFAULT_WEIGHT
    );
  }

  private declaredRule(handler: object, cls: object): CountRule | undefined {
    let byClass = this.declared.get(handler);
    if (!byClass) this.declared.set(handler, (byClass = new WeakMap()));
    let found = byClass.get(cls);
    if (!found) {
      const targets = [handler as () => unknown, cls as new () => unknown];
      const signed = this.reflector.getAllAndOverride<SignedEndpoint | undefined>(SIGNED_ENDPOINT, targets);
      found = {
        rule: signed
          ? signed.weight
          : this.reflector.getAllAndOverride<CountRule | undefined>(FAPI_WEIGHT, targets),
      };
      byClass.set(cls, found);
    }
    return found.rule;
  }
}
