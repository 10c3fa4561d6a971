import { isPriceProtectHeld, Money, parseDecimal, trackTrailingStop, triggeredOrderType } from '@perp/domain';
import type { WaitingTrigger } from '../risk-partition';
import { publishAdlScores } from './adl-scores';
import { fireAlgo } from './algo-records';
import { checkMargins } from './margin-check';
import {
  balanceEvent,
  closeOrder,
  forwardOrder,
  optionalMoney,
  type RiskContext,
  type RiskHandler,
} from './risk-context';

/**
 * A mark price copied into the partition: the account book revalues, every waiting trigger order it
 * reaches fires in placement order (algo ones included), then trailing stops follow it. A trigger
 * with priceProtect waits while the mark and the last price are further apart than the market's
 * triggerProtect. Last, the margin of the symbol's position holders (margin calls, liquidations).
 */
export const markPrice: RiskHandler<'price.mark'> = (ctx, cmd) => {
  const { p } = ctx;
  const mark = parseDecimal(cmd.markPrice);
  if (!mark?.gt(0)) return;
  p.book.setMarkPrice(cmd.symbol, mark);
  const threshold = new Money(ctx.markets.find(cmd.symbol)?.triggerProtect ?? '0.05');
  const held = isPriceProtectHeld(mark, optionalMoney(cmd.lastPrice), threshold);
  let index = 0;
  for (const t of p.triggers.fire(cmd.symbol, mark)) {
    if (held && t.command.priceProtect) {
      p.triggers.add(t);
      continue;
    }
    const algo = t.algoId === undefined ? undefined : p.algos.get(t.algoId);
    if (algo) fireAlgo(ctx, algo, index++, cmd.time);
    else fireTrigger(ctx, t, index++, cmd.time);
  }
  for (const live of p.algos.trailingOf(cmd.symbol)) {
    const r = trackTrailingStop(live.trailing!, mark);
    const next = r.state === live.trailing ? live : { ...live, trailing: r.state };
    if (next !== live) p.algos.put(next);
    if (r.fire && !(held && live.record.priceProtect)) fireAlgo(ctx, next, index++, cmd.time);
  }
  // Then margin: only the accounts holding a position on the symbol can have moved.
  checkMargins(ctx, p.book.holders(cmd.symbol), index, cmd.time, cmd.symbol);
  publishAdlScores(ctx, cmd.symbol, cmd.time);
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
