import { isTriggerOrderType, type Market, type TriggerOrderType } from '@perp/domain';
import { newOrderRecord } from '../order-records';
import {
  balanceEvent,
  forwardOrder,
  type NewOrderCommand,
  optionalMoney,
  preTradeRequest,
  refusal,
  type RiskContext,
  type RiskHandler,
  tradingMarket,
} from './risk-context';

/**
 * New Order: the market must be TRADING and the ids new; a trigger order waits here, any other
 * goes through pre-trade (margin frozen) to the engine, which answers through command.result.
 */
export const newOrder: RiskHandler<'order.new'> = (ctx, cmd) => {
  const { p, out } = ctx;
  const market = tradingMarket(ctx, cmd.symbol);
  if (!market) return;
  if (p.record(cmd.orderId)) {
    out.reply = refusal('DUPLICATE_ORDER_ID', 'order id already in use');
    return;
  }
  // Waiting trigger orders hold no margin, so the account does not know their client ids.
  if (p.findOpen(cmd.user, undefined, cmd.clientOrderId)) {
    out.reply = refusal('DUPLICATE_CLIENT_ORDER_ID', 'newClientOrderId is used by an active order');
    return;
  }
  if (p.openOrderCount(cmd.user, market.symbol) >= market.maxOpenOrders) {
    out.reply = refusal('MAX_OPEN_ORDERS', `Reach max open order limit (${market.maxOpenOrders}).`);
    return;
  }
  // The command itself when it names the market canonically (the gateway's do); a copy otherwise.
  const order = cmd.symbol === market.symbol ? cmd : Object.assign({}, cmd, { symbol: market.symbol });
  const type = order.orderType;
  if (isTriggerOrderType(type) && p.waitingTriggerCount(cmd.user, market.symbol) >= market.maxAlgoOrders) {
    out.reply = refusal('MAX_ALGO_ORDERS', `Reach max stop order limit (${market.maxAlgoOrders}).`);
    return;
  }
  if (isTriggerOrderType(type)) return newTrigger(ctx, { ...order, orderType: type }, market);
  const r = forwardOrder(ctx, order, 0);
  if (!r.ok) {
    out.reply = refusal(r.reason, r.message);
    return;
  }
  const record = newOrderRecord(order, r.quantity, market);
  p.put(record);
  if (out.recording) out.accountEvents.push({ type: 'order', user: cmd.user, order: record });
  balanceEvent(ctx, cmd.user);
};

/** Rule 8: kept here, holding no margin, until the mark reaches stopPrice; refused when it has. */
function newTrigger(
  ctx: RiskContext,
  cmd: NewOrderCommand & { orderType: TriggerOrderType },
  market: Market,
): void {
  const { p, m, out } = ctx;
  const stopPrice = optionalMoney(cmd.stopPrice);
  if (!stopPrice) {
    out.reply = refusal('MISSING_PARAMETER', 'stopPrice is required');
    return;
  }
  const r = p.book.checkTriggerOrder(cmd.user, { ...preTradeRequest(cmd), type: cmd.orderType, stopPrice });
  if (!r.ok) {
    out.reply = refusal(r.reason, r.message);
    return;
  }
  const record = newOrderRecord(cmd, r.quantity, market);
  p.put(record);
  const { quoteOrderQty: _converted, ...command } = cmd;
  p.triggers.add({
    orderId: cmd.orderId,
    symbol: market.symbol,
    direction: r.direction,
    stopPrice,
    seq: Number(m.offset),
    user: cmd.user,
    command: { ...command, quantity: r.quantity.toFixed() },
  });
  out.accountEvents.push({ type: 'order', user: cmd.user, order: record });
  out.users.add(cmd.user);
  out.reply = { ok: true, result: record };
}
