import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fapiParams } from '../access/signed/fapi-params';
import { SIGNED_ENDPOINT, type SignedEndpoint } from '../access/signed/signed';
import { setCountHeaders } from './rate-limit-http';
import {
  amountOf,
  type CountRule,
  DEFAULT_WEIGHT,
  isFapiPath,
  pathOf,
  PUBLIC_WEIGHTS,
  retryAfterSeconds,
} from './rate-limit-rules';
import { RequestWeights, weightRefusal } from './request-weights';
import { FAPI_WEIGHT } from './weight.decorator';

export { RATE_LIMIT_TRUSTED_PROXIES } from './request-weights';

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
  constructor(
    private readonly reflector: Reflector,
    private readonly weights: RequestWeights,
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
    const ip = this.weights.ipOf(request.raw);
    const outcome = await this.weights.spend(ip, weight);
    if (!outcome) return true;
    setCountHeaders(reply, outcome, true);
    const refused = weightRefusal(outcome, ip);
    if (!refused) return true;
    void reply.header('Retry-After', String(retryAfterSeconds(outcome.states, outcome.refused)));
    throw refused;
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
