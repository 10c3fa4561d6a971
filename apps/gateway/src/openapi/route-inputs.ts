import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { FapiFields, type FapiParamShape } from '@perp/contracts';
import type { FastifyRequest } from 'fastify';
import { fapiParams } from '../access/signed/fapi-params';
import { NativeFields, type NativeShape } from './native-fields';

/** Where a route's input schema sits in Nest's route-argument metadata (read by the OpenAPI builder). */
export const ROUTE_INPUT = Symbol('perp:route-input');

export type RouteInput =
  | { kind: 'fapi'; shape: FapiParamShape }
  | { kind: 'native-body'; shape: NativeShape }
  | { kind: 'native-query'; shape: NativeShape };

type Marked = { [ROUTE_INPUT]: RouteInput };

const request = (ctx: ExecutionContext) => ctx.switchToHttp().getRequest<FastifyRequest>();

const fapiInput = createParamDecorator(
  (data: Marked, ctx: ExecutionContext) =>
    new FapiFields(data[ROUTE_INPUT].shape as FapiParamShape, fapiParams(request(ctx))),
);

const nativeInput = createParamDecorator((data: Marked, ctx: ExecutionContext) => {
  const input = data[ROUTE_INPUT];
  const req = request(ctx);
  return new NativeFields(input.shape as NativeShape, input.kind === 'native-body' ? req.body : req.query);
});

/**
 * `@FapiInput(SHAPE) q: FapiFields<typeof SHAPE>`: the route's FAPI parameters (query, form or JSON
 * body), each read by its schema. The same shape is the route's documented parameters.
 */
export const FapiInput = <S extends FapiParamShape>(shape: S) =>
  fapiInput({ [ROUTE_INPUT]: { kind: 'fapi', shape } } satisfies Marked);

/** `@NativeBody(SHAPE) body: NativeFields<typeof SHAPE>`: a native JSON body, read and documented by SHAPE. */
export const NativeBody = <S extends NativeShape>(shape: S) =>
  nativeInput({ [ROUTE_INPUT]: { kind: 'native-body', shape } } satisfies Marked);

/** `@NativeQuery(SHAPE) query: NativeFields<typeof SHAPE>`: native query parameters. */
export const NativeQuery = <S extends NativeShape>(shape: S) =>
  nativeInput({ [ROUTE_INPUT]: { kind: 'native-query', shape } } satisfies Marked);

/** The input a handler declares, from its route-argument metadata. */
export function routeInputOf(args: Record<string, { data?: unknown }> | undefined): RouteInput | undefined {
  for (const arg of Object.values(args ?? {})) {
    const data = arg.data as Partial<Marked> | undefined;
    if (data && typeof data === 'object' && data[ROUTE_INPUT]) return data[ROUTE_INPUT];
  }
  return undefined;
}
