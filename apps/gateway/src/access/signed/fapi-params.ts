import { FapiError, type RawParams } from '@perp/contracts';
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    fapiParams?: RawParams;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/**
 * The request's FAPI parameters: the query merged with a form or JSON object body. Binance clients
 * send POST parameters in the query, in a form body, or (the spec's convention) in a JSON body. A
 * name given twice, in either place or in both, becomes an array, which the contracts helpers
 * (`scalar`, `required`, …) refuse with -1102. A JSON body that is not an object is -1102.
 */
export function fapiParams(request: FastifyRequest): RawParams {
  if (request.fapiParams) return request.fapiParams;
  return (request.fapiParams = mergeFapiParams(request.query, request.body, request.rawBody !== undefined));
}

/**
 * fapiParams of a parsed query and body (`hasBody`: the request carried body bytes, so a body that
 * is not an object is malformed rather than absent).
 */
export function mergeFapiParams(query: unknown, body: unknown, hasBody: boolean): RawParams {
  const out: RawParams = Object.create(null) as RawParams;
  const add = (name: string, value: unknown) => {
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else out[name] = [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(value) ? value : [value])];
  };
  if (isPlainObject(query)) for (const [k, v] of Object.entries(query)) add(k, v);
  if (Array.isArray(body) || (hasBody && body !== undefined && !isPlainObject(body)))
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'Request body must be a JSON object.');
  if (isPlainObject(body)) for (const [k, v] of Object.entries(body)) add(k, v);
  return out;
}
