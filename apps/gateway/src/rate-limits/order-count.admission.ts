import { type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedRequestAdmission } from '../access/signed/admission';
import type { FapiCaller } from '../access/signed/fapi-caller';
import { fapiParams } from '../access/signed/fapi-params';
import { SIGNED_ENDPOINT, type SignedEndpoint } from '../access/signed/signed';
import { RATE_LIMIT_CEILINGS, setCountHeaders, tooManyRequests } from './rate-limit-http';
import { amountOf, intervalWords, orderWindows, type RateLimitCeilings } from './rate-limit-rules';
import type { LimitOutcome } from './window-limiter';
import { WindowLeases } from './window-leases';

/**
 * Orders per account (the API key's user, whichever key) per 10 s and per minute, on endpoints
 * whose `@Signed()` declares `orders`. Runs inside SignedRequestGuard once the signature is
 * verified, so only authenticated requests count, and a refusal (HTTP 429 -1003, Retry-After)
 * comes before the key's use is recorded or the handler runs: it changes nothing. The answer
 * carries `X-MBX-ORDER-COUNT-10S` and `X-MBX-ORDER-COUNT-1M`. Counted from this replica's leases
 * (WindowLeases), as request weight is: a busy account's order costs no hot-store round trip.
 */
@Injectable()
export class OrderCountAdmission implements SignedRequestAdmission {
  private readonly logger = new Logger('RateLimits');

  constructor(
    private readonly reflector: Reflector,
    private readonly leases: WindowLeases,
    @Inject(RATE_LIMIT_CEILINGS) private readonly ceilings: RateLimitCeilings,
  ) {}

  async admit(context: ExecutionContext, caller: FapiCaller): Promise<void> {
    const endpoint = this.reflector.getAllAndOverride<SignedEndpoint | undefined>(SIGNED_ENDPOINT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (endpoint?.orders === undefined) return;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    // Parameters the rule cannot read: the handler answers -1102 and places nothing.
    const orders = amountOf(endpoint.orders, () => fapiParams(request), 0);
    const outcome = await this.count(caller.userId, orders);
    if (!outcome) return;
    setCountHeaders(reply, outcome);
    const refused = orderCountRefusal(outcome);
    if (refused) throw tooManyRequests(reply, outcome, refused);
  }

  /**
   * Spends `orders` of the account's windows; undefined when the hot store failed (logged: the
   * request goes on uncounted). SignedOrderLanes counts with it too.
   */
  async count(userId: string, orders: number): Promise<LimitOutcome | undefined> {
    try {
      return await this.leases.take(orderWindows(this.ceilings, userId), orders);
    } catch (e) {
      this.logger.warn(`order count not checked (hot store): ${String(e)}`);
      return undefined;
    }
  }
}

/** The -1003 message of a refused order count; undefined when admitted. */
export function orderCountRefusal(outcome: LimitOutcome): string | undefined {
  if (outcome.refused.length === 0) return undefined;
  const window = outcome.windows[outcome.refused[0]!]!;
  return `Too many new orders; current limit is ${window.limit} orders per ${intervalWords(window.windowMs)}.`;
}
