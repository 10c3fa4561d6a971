import { FapiError, type OrderRecord } from '@perp/contracts';
import { fapiRefusal } from '../outcomes/fapi-outcomes';
import type { RiskOutcome } from './risk-client';

/** A risk or engine answer on FAPI: the result, or the FapiError of its reason (DISCONNECTED when none came). */
export function fapiResult(outcome: RiskOutcome): unknown {
  if (outcome.ok) return outcome.result;
  if ('unavailable' in outcome)
    throw new FapiError('DISCONNECTED', 'Internal error; the order service did not answer in time.');
  throw fapiRefusal(outcome.error);
}

/** The wire Order record: every field but the owner. */
export function fapiOrder(record: OrderRecord): Omit<OrderRecord, 'user'> {
  const { user: _owner, ...wire } = record;
  void _owner;
  return wire;
}
