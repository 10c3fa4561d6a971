import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { RawParams } from '@perp/contracts';
import type { FastifyRequest } from 'fastify';
import type { FapiCaller } from './fapi-caller';
import { fapiParams } from './fapi-params';
import { SignedRequestGuard } from './signed-request.guard';

export type { FapiCaller } from './fapi-caller';

/** What `@Signed()` records about an endpoint (spec: Type and Weight per endpoint). */
export interface SignedEndpoint {
  type: 'TRADE' | 'USER_DATA';
  /** Request weight; a function when it depends on the parameters (e.g. with or without symbol). */
  weight: number | ((params: RawParams) => number);
  /**
   * Orders the request places, counted per account against the ORDERS ceilings (10 s and 1 min)
   * before the handler runs: `1` on New Order, `(p) => batchOrderCount(p)` on batchOrders. Absent
   * on endpoints that place no order (no order-count check, no X-MBX-ORDER-COUNT-* headers).
   */
  orders?: number | ((params: RawParams) => number);
}

export const SIGNED_ENDPOINT = 'perp:fapi-signed-endpoint';

/**
 * Marks a FAPI endpoint as signed: X-MBX-APIKEY, `timestamp` and `signature` are checked before the
 * handler runs (see SignedRequestGuard), and the Type, Weight and order count are recorded for rate
 * limiting (apps/gateway/src/rate-limits).
 */
export function Signed(endpoint: SignedEndpoint): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(SIGNED_ENDPOINT, endpoint), UseGuards(SignedRequestGuard));
}

/** The `@Signed()` metadata of the handler being run, if any, and its weight for this request. */
export function signedEndpointOf(
  reflector: Reflector,
  context: ExecutionContext,
): (SignedEndpoint & { weightNow: number }) | undefined {
  const endpoint = reflector.getAllAndOverride<SignedEndpoint | undefined>(SIGNED_ENDPOINT, [
    context.getHandler(),
    context.getClass(),
  ]);
  if (!endpoint) return undefined;
  const { weight } = endpoint;
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  // Object.assign, not a spread adding a field (V8's slow path, ~1 us per request).
  return Object.assign(
    { weightNow: typeof weight === 'number' ? weight : weight(fapiParams(request)) },
    endpoint,
  );
}

/** `@Caller() caller: FapiCaller` in a `@Signed()` handler. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): FapiCaller => {
  const caller = ctx.switchToHttp().getRequest<FastifyRequest>().fapiCaller;
  if (!caller) throw new Error('@Caller() used on an endpoint without @Signed()');
  return caller;
});

/** `@FapiParams() params: RawParams`: query and body parameters merged (see fapiParams). */
export const FapiParams = createParamDecorator((_: unknown, ctx: ExecutionContext): RawParams =>
  fapiParams(ctx.switchToHttp().getRequest<FastifyRequest>()),
);
