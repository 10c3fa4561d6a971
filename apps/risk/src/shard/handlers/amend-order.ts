import { Money, parseDecimal } from '@perp/domain';
import { forwarded, refusal, type RiskHandler } from './risk-context';

/**
 * Modify a resting LIMIT order: checked against the margin of a new order of the open quantity at
 * the new price (the old order's margin set aside), then forwarded. The account keeps the order as
 * the engine holds it until the engine confirms (`order.amended` re-margins it there): fills that
 * reach the engine first settle against the old order, and a refused amend changes nothing.
 */
export const amendOrder: RiskHandler<'order.amend'> = (ctx, cmd) => {
  const { p, out } = ctx;
  const rec = p.findOpen(cmd.user, cmd.orderId, cmd.clientOrderId);
  const market = ctx.markets.find(cmd.symbol);
  if (!rec || !market || rec.symbol !== market.symbol) {
    out.reply = refusal('ORDER_NOT_MODIFIABLE', 'no open order with this id');
    return;
  }
  if (rec.side !== cmd.side) {
    out.reply = refusal('SIDE_MISMATCH', 'side does not match the order');
    return;
  }
  if (rec.type !== 'LIMIT') {
    out.reply = refusal('ORDER_NOT_MODIFIABLE', 'only LIMIT orders can be modified');
    return;
  }
  const openQty = new Money(cmd.quantity).minus(rec.executedQty);
  if (!openQty.gt(0)) {
    out.reply = refusal('ORDER_NOT_MODIFIABLE', 'the new quantity is not above the executed quantity');
    return;
  }
  const account = p.book.account(cmd.user);
  const before = account.order(rec.orderId);
  if (!before) {
    out.reply = refusal('ORDER_NOT_MODIFIABLE', 'no open order with this id');
    return;
  }
  const old = { ...before };
  account.removeOrder(rec.orderId);
  const r = p.book.placeOrder(cmd.user, {
    orderId: rec.orderId,
    clientOrderId: rec.clientOrderId,
    symbol: market.symbol,
    side: rec.side,
    type: 'LIMIT',
    quantity: openQty,
    price: parseDecimal(cmd.price),
    reduceOnly: rec.reduceOnly,
  });
  // A check only: the account goes back to the order the engine holds.
  account.removeOrder(rec.orderId);
  account.addOrder(old);
  if (!r.ok) {
    out.reply = refusal(r.reason, r.message);
    return;
  }
  out.engineCommands.push(
    Object.assign(forwarded(ctx, cmd.time), {
      type: 'order.amend' as const,
      user: cmd.user,
      symbol: market.symbol,
      orderId: rec.orderId,
      price: new Money(cmd.price).toFixed(),
      quantity: r.quantity.toFixed(),
    }),
  );
};
