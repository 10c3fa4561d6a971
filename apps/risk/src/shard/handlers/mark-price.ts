import { parseDecimal, triggeredOrderType } from '@perp/domain';
import type { WaitingTrigger } from '../risk-partition';
import { balanceEvent, closeOrder, forwardOrder, type RiskContext, type RiskHandler } from './risk-context';

/**
 * A mark price copied into the partition: the account book revalues, and every waiting trigger
 * order it reaches fires, in placement order.
 */
export const markPrice: RiskHandler<'price.mark'> = (ctx, cmd) => {
  const mark = parseDecimal(cmd.markPrice);
  if (!mark?.gt(0)) return;
  ctx.p.book.setMarkPrice(cmd.symbol, mark);
  ctx.p.triggers.fire(cmd.symbol, mark).forEach((t, i) => fireTrigger(ctx, t, i, cmd.time));
};

/**
 * The mark reached a trigger: its derived LIMIT or MARKET order goes through pre-trade now (margin
 * frozen at this moment) and on to the engine under the same order id; refused, it is REJECTED.
 */
function fireTrigger(ctx: RiskContext, t: WaitingTrigger, index: number, time: number): void {
  const { p, out } = ctx;
  const { price, ...rest } = t.command;
  const type = triggeredOrderType(rest.orderType);
  const derived = { ...rest, orderType: type, time, ...(type === 'LIMIT' ? { price } : {}) };
  if (!forwardOrder(ctx, derived, index).ok) {
    closeOrder(ctx, t.user, t.orderId, 'REJECTED', time);
    return;
  }
  const rec = p.openOrder(t.orderId);
  if (rec) {
    const fired = { ...rec, type, updateTime: Math.max(rec.updateTime, time) };
    p.put(fired);
    out.accountEvents.push({ type: 'order', user: t.user, order: fired });
  }
  balanceEvent(ctx, t.user);
}
