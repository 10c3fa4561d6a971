import { deterministicUuid, type EngineCommand, type EngineEvent } from '@perp/contracts';
import { BookMarketState, deleveragePlan } from '@perp/domain';
import { adlQueues } from './adl-scores';
import { toSteps } from './conversions';
import { bookEvents, type InputPlace } from './engine-events';
import type { EnginePartition, SymbolBook } from './engine-partition';
import type { LiquidationRemainder } from './liquidation-order';

/** What the book could not fill of a liquidation, for ADL to close. */
export interface AdlRemainder {
  liquidationId: string;
  /** The liquidated user's address. */
  user: string;
  /** The liquidation's closing side: SELL closes a long. */
  side: 'BUY' | 'SELL';
  lots: number;
  /** The bankruptcy price in ticks: every ADL close trades there. */
  bankruptcyPrice: number;
}

/** The order id an ADL close gives the deleveraged counterparty: derived, so a replay finds it again. */
export function adlOrderId(liquidationId: string, counterparty: string): string {
  return deterministicUuid(`${liquidationId}/adl/${counterparty}`);
}

/**
 * Auto-deleveraging: closes the remainder of a liquidation against the opposite side's positions
 * in ADL order (the latest scores from risk, highest first; positions without a score last; then
 * by address), at the bankruptcy price, each as a `trade` of kind ADL: the liquidated user takes
 * with order id = liquidationId, the counterparty makes with `adlOrderId`. Positions come from the
 * book, so no close can open or flip one, and at most the liquidated position closes; nothing
 * closes while the market is not TRADING. Event ids continue from `firstIndex` of the input at
 * `at`. Returns the events and the lots closed.
 */
export function adlClose(
  p: EnginePartition,
  sb: SymbolBook,
  at: InputPlace,
  cmd: Extract<EngineCommand, { type: 'liquidation.place' }>,
  r: AdlRemainder,
  firstIndex: number,
): { events: EngineEvent[]; lots: number } {
  const events: EngineEvent[] = [];
  const user = p.userIds.get(r.user);
  // A halted or closed market deleverages nobody, as its book matches nothing: the rest waits.
  if (user === undefined || !(r.lots > 0) || sb.book.state !== BookMarketState.TRADING)
    return { events, lots: 0 };
  const pos = sb.book.position(user);
  const closable = r.side === 'SELL' ? Math.max(pos, 0) : Math.max(-pos, 0);
  const want = Math.min(r.lots, closable);
  if (want === 0) return { events, lots: 0 };
  const queues = adlQueues(p, sb);
  const plan = deleveragePlan(pos > 0 ? queues.short : queues.long, want);
  let closed = 0;
  for (const step of plan) {
    const counterparty = p.userIds.get(step.user)!;
    const taker =
      p.orderIds.get(r.liquidationId) ??
      p.internOrder({ uuid: r.liquidationId, clientOrderId: '', user: r.user });
    const maker = p.internOrder({
      uuid: adlOrderId(r.liquidationId, step.user),
      clientOrderId: '',
      user: step.user,
    });
    const q = sb.book.deleverage(taker, user, maker, counterparty, step.lots, r.bankruptcyPrice);
    closed += q;
    for (const e of bookEvents(p, sb, at, cmd, firstIndex + events.length))
      events.push(e.type === 'trade' ? { ...e, kind: 'ADL' } : e);
    // Nothing rests under these ids (bookEvents forgets them after a fill; not when none happened).
    p.forgetOrder(taker);
    p.forgetOrder(maker);
  }
  return { events, lots: closed };
}

/**
 * The engine's liquidation remainder hook (liquidation-order.ts): what the book did not fill of a
 * liquidation is auto-deleveraged at its bankruptcy price.
 */
export const adlRemainder: LiquidationRemainder = ({ p, sb, at, cmd, remainingLots, firstIndex }) =>
  adlClose(
    p,
    sb,
    at,
    cmd,
    {
      liquidationId: cmd.liquidationId,
      user: cmd.user,
      side: cmd.side,
      lots: remainingLots,
      bankruptcyPrice: toSteps(cmd.bankruptcyPrice, sb.tickSize),
    },
    firstIndex,
  );
