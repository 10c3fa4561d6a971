import { fapiAlgoRefusal, fapiRefusal, fapiUnanswered } from '../outcomes/fapi-outcomes';
import type { RiskOutcome } from './risk-client';

/**
 * A risk or engine answer on FAPI: the result, or the FapiError of its reason; when none came in
 * time, -1007 (outcome unknown) or -1001 (never sent).
 */
export function fapiResult(outcome: RiskOutcome): unknown {
  if (outcome.ok) return outcome.result;
  if ('unavailable' in outcome) throw fapiUnanswered(outcome.published);
  throw fapiRefusal(outcome.error);
}

/** fapiResult for algo orders: refusals through the algo rows (fapiAlgoRefusal). */
export function fapiAlgoResult(outcome: RiskOutcome): unknown {
  if (!outcome.ok && !('unavailable' in outcome)) throw fapiAlgoRefusal(outcome.error);
  return fapiResult(outcome);
}
