import type { EngineEvent } from '@perp/contracts';
import { decimal } from '@perp/domain';
import { recordAmended } from '../order-records';
import { settleFill } from './fill';
import { liquidationDone } from './liquidation-done';
import { checkMargins } from './margin-check';
import { balanceEvent, closeOrder, type RiskContext, type RiskHandler } from './risk-context';

/**
 * An engine event the engine copied into the user's partition, applied once: copies carry their
 * source place (engine partition, offset, index), deduped here by high-water mark.
 */
export const engineEvent: RiskHandler<'engine.event'> = (ctx, cmd) => {
  const { source, event } = cmd;
  const offset = BigInt(source.offset);
  if (!ctx.p.engineMarks.isNew(source.partition, offset, source.index)) return;
  // Replies to forwarded commands come from the event that ends them, not from this message.
  ctx.out.replyTo = undefined;
  applyEngineEvent(ctx, event, cmd.liquidity ?? legacyLiquidity(source.index));
  // Marked once applied: a copy whose settlement threw is retried, not taken for a duplicate.
  ctx.p.engineMarks.mark(source.partition, offset, source.index);
};

function applyEngineEvent(ctx: RiskContext, event: EngineEvent, liquidity: 'MAKER' | 'TAKER'): void {
  switch (event.type) {
    case 'order.rejected':
    case 'order.canceled':
    case 'order.expired':
      closeOrder(
        ctx,
        event.user,
        event.orderId,
        event.type === 'order.rejected' ? 'REJECTED' : 'CANCELED',
        event.time,
      );
      return;
    case 'order.amended':
      return orderAmended(ctx, event);
    case 'trade': {
      settleFill(ctx, event, liquidity);
      // Every fill moves the account: check it (a liquidated account in flight is skipped there).
      const user = liquidity === 'MAKER' ? event.maker.user : event.taker.user;
      checkMargins(ctx, [user], 0, event.time, event.symbol);
      return;
    }
    case 'liquidation.done':
      return liquidationDone(ctx, event);
    case 'command.result':
      return commandResult(ctx, event);
    default:
      return;
  }
}

/**
 * The engine amended the order: the record takes the new price and quantity, and the account order
 * is re-margined for the open quantity at the new price. The amend passed the margin check when it
 * was sent; should the balance have moved since, the order keeps the margin it held, because the
 * engine's book is what the account must mirror.
 */
function orderAmended(ctx: RiskContext, event: Extract<EngineEvent, { type: 'order.amended' }>): void {
  const { p, out } = ctx;
  const rec = p.openOrder(event.orderId);
  const market = ctx.markets.find(event.symbol);
  if (!rec || !market) return;
  const next = recordAmended(rec, event.price, event.quantity, event.time, market);
  p.put(next);
  out.accountEvents.push({ type: 'order', user: next.user, order: next });
  const account = p.book.account(next.user);
  const held = account.removeOrder(next.orderId);
  if (held) {
    const price = decimal(event.price);
    const quantity = decimal(event.quantity);
    const r = p.book.placeOrder(next.user, {
      orderId: held.orderId,
      clientOrderId: held.clientOrderId,
      symbol: held.symbol,
      side: held.side,
      type: 'LIMIT',
      quantity,
      price,
      reduceOnly: held.reduceOnly,
    });
    if (!r.ok) account.addOrder({ ...held, referencePrice: price, quantity, remaining: quantity });
  }
  balanceEvent(ctx, next.user);
}

/** The end of a forwarded command: a refused placement is REJECTED, and the gateway gets its answer. */
function commandResult(ctx: RiskContext, event: Extract<EngineEvent, { type: 'command.result' }>): void {
  const { p, out } = ctx;
  if (event.command === 'order.place' && !event.ok && event.orderId)
    closeOrder(ctx, event.user, event.orderId, 'REJECTED', event.time);
  if (!event.replyTo) return;
  out.replyTo = event.replyTo;
  if (!event.ok) {
    out.reply = {
      ok: false,
      error: event.error ?? { reason: 'INTERNAL_ERROR', msg: 'the engine gave no reason' },
    };
    return;
  }
  const rec = event.orderId === undefined ? undefined : p.record(event.orderId);
  out.reply = { ok: true, result: rec ?? event.result };
}

/** Trade copies made before `liquidity` existed: the maker's copy was numbered even. */
function legacyLiquidity(index: number): 'MAKER' | 'TAKER' {
  return index % 2 === 0 ? 'MAKER' : 'TAKER';
}
