import type { AlgoOrderRecord } from '@perp/contracts';
import { type AlgoTransition, closePositionQuantity, nextAlgoStatus, triggeredOrderType } from '@perp/domain';
import type { LiveAlgo } from '../algo-book';
import { newOrderRecord } from '../order-records';
import { balanceEvent, forwardOrder, type RiskContext } from './risk-context';

/** Publishes an algo order's record as an account event and rewrites the user's algo projection. */
export function algoEvent(ctx: RiskContext, algo: AlgoOrderRecord): void {
  ctx.out.accountEvents.push({ type: 'algoOrder', user: algo.user, algo });
  ctx.out.algoUsers.add(algo.user);
}

/**
 * Moves a live algo order along its state machine at `time`: TRIGGERED stays live (until its order
 * leaves the book), every other state ends it. Returns the new record, or undefined when the
 * transition does not apply to its state.
 */
export function moveAlgo(
  ctx: RiskContext,
  live: LiveAlgo,
  transition: AlgoTransition,
  time: number,
  changes: Partial<AlgoOrderRecord> = {},
): AlgoOrderRecord | undefined {
  const status = nextAlgoStatus(live.record.algoStatus, transition);
  if (!status) return undefined;
  const record: AlgoOrderRecord = {
    ...live.record,
    ...changes,
    algoStatus: status,
    updateTime: Math.max(live.record.updateTime, time),
  };
  if (status === 'TRIGGERED') ctx.p.algos.put({ ...live, record });
  else ctx.p.algos.end(record);
  algoEvent(ctx, record);
  return record;
}

/** An order left the book: the algo order it was fired from is FINISHED, or FAILED when the engine refused it. */
export function finishAlgoOf(ctx: RiskContext, orderId: string, time: number, rejected = false): void {
  const live = ctx.p.algos.byOrder(orderId);
  if (live) moveAlgo(ctx, live, rejected ? 'FAIL' : 'FINISH', time);
}

/**
 * The mark reached an algo order (or its trailing callback): closePosition takes the position as
 * it is now, the derived order goes through pre-trade and on to the engine, and the algo order is
 * TRIGGERED; refused (or nothing to close), it ends FAILED with the reason.
 */
export function fireAlgo(ctx: RiskContext, live: LiveAlgo, index: number, time: number): void {
  const { p, out } = ctx;
  const { record } = live;
  const market = ctx.markets.find(record.symbol);
  const { price, ...rest } = live.command;
  const type = triggeredOrderType(rest.orderType);
  let quantity = rest.quantity;
  if (record.closePosition) {
    const size = closePositionQuantity(
      record.side,
      p.book.account(record.user).position(record.symbol)?.size,
    );
    if (!size || !market) {
      moveAlgo(ctx, live, 'FAIL', time, { triggerTime: time, reason: 'no position to close' });
      return;
    }
    quantity = size.toFixed(market.quantityPrecision);
  }
  const derived = { ...rest, quantity, orderType: type, time, ...(type === 'LIMIT' ? { price } : {}) };
  const r = market ? forwardOrder(ctx, derived, index) : undefined;
  if (!r?.ok || !market) {
    const reason = r && !r.ok ? r.message : 'market gone';
    moveAlgo(ctx, live, 'FAIL', time, { triggerTime: time, reason });
    balanceEvent(ctx, record.user);
    return;
  }
  const order = { ...newOrderRecord(derived, r.quantity, market), origType: record.orderType };
  p.put(order);
  out.accountEvents.push({ type: 'order', user: record.user, order });
  balanceEvent(ctx, record.user);
  moveAlgo(ctx, live, 'TRIGGER', time, { triggerTime: time, actualOrderId: derived.orderId });
}
