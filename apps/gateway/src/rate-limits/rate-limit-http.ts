import { FapiError } from '@perp/contracts';
import type { FastifyReply } from 'fastify';
import { countHeaders, LEGACY_WEIGHT_HEADER, retryAfterSeconds } from './rate-limit-rules';
import type { LimitOutcome } from './window-limiter';

/** The ceilings in force (RATE_LIMIT_* of the app configuration). */
export const RATE_LIMIT_CEILINGS = Symbol('RATE_LIMIT_CEILINGS');

/** Puts the windows' counts on the reply (they stay on it whether the handler succeeds or fails). */
export function setCountHeaders(reply: FastifyReply, outcome: LimitOutcome, legacyWeight = false): void {
  const headers = countHeaders(outcome.windows, outcome.states);
  if (legacyWeight) {
    const first = Object.values(headers)[0];
    if (first !== undefined) headers[LEGACY_WEIGHT_HEADER] = first;
  }
  void reply.headers(headers);
}

/** Retry-After on the reply and the FAPI business error -1003 (HTTP 429) to throw. */
export function tooManyRequests(reply: FastifyReply, outcome: LimitOutcome, message: string): FapiError {
  void reply.header('Retry-After', String(retryAfterSeconds(outcome.states, outcome.refused)));
  return new FapiError('TOO_MANY_REQUESTS', message);
}
