import { closeOrder, forwarded, refusal, type RiskHandler } from './risk-context';

/** Cancel: a waiting trigger is cancelled here; a resting order by the engine (it answers). */
export const cancelOrder: RiskHandler<'order.cancel'> = (ctx, cmd) => {
  const { p, out } = ctx;
  const rec = p.findOpen(cmd.user, cmd.orderId, cmd.clientOrderId);
  if (!rec || rec.symbol !== cmd.symbol) {
    out.reply = refusal('UNKNOWN_ORDER', 'no open order with this id');
    return;
  }
  if (p.triggers.remove(rec.orderId)) {
    out.reply = { ok: true, result: closeOrder(ctx, cmd.user, rec.orderId, 'CANCELED', cmd.time) };
    return;
  }
  out.engineCommands.push(
    Object.assign(forwarded(ctx, cmd.time), {
      type: 'order.cancel' as const,
      user: cmd.user,
      symbol: rec.symbol,
      orderId: rec.orderId,
    }),
  );
};

/** Cancel all of a symbol: the waiting triggers here, the resting orders by the engine. */
export const cancelAllOrders: RiskHandler<'order.cancelAll'> = (ctx, cmd) => {
  const { p, out } = ctx;
  for (const rec of p.openOrdersOf(cmd.user, cmd.symbol))
    if (p.triggers.remove(rec.orderId)) closeOrder(ctx, cmd.user, rec.orderId, 'CANCELED', cmd.time);
  out.engineCommands.push(
    Object.assign(forwarded(ctx, cmd.time), {
      type: 'order.cancelAll' as const,
      user: cmd.user,
      symbol: cmd.symbol,
    }),
  );
};
