import type { OrderRecord } from '@perp/contracts';
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

/**
 * The wire Order record: every field but the owner, in the record's order. Listed, not a rest copy
 * (V8 copies those property by property; this runs for every order answer).
 */
export function fapiOrder(r: OrderRecord): Omit<OrderRecord, 'user'> {
  return {
    orderId: r.orderId,
    symbol: r.symbol,
    status: r.status,
    clientOrderId: r.clientOrderId,
    price: r.price,
    avgPrice: r.avgPrice,
    origQty: r.origQty,
    executedQty: r.executedQty,
    cumQuote: r.cumQuote,
    timeInForce: r.timeInForce,
    type: r.type,
    origType: r.origType,
    reduceOnly: r.reduceOnly,
    side: r.side,
    positionSide: r.positionSide,
    stopPrice: r.stopPrice,
    workingType: r.workingType,
    priceProtect: r.priceProtect,
    selfTradePreventionMode: r.selfTradePreventionMode,
    time: r.time,
    updateTime: r.updateTime,
  };
}

/** fapiResult for algo orders: refusals through the algo rows (fapiAlgoRefusal). */
export function fapiAlgoResult(outcome: RiskOutcome): unknown {
  if (!outcome.ok && !('unavailable' in outcome)) throw fapiAlgoRefusal(outcome.error);
  return fapiResult(outcome);
}
