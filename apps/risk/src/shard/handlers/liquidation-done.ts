import type { EngineEvent, OrderRecord } from '@perp/contracts';
import { averagePrice, Money } from '@perp/domain';
import { checkMargins } from './margin-check';
import { balanceEvent, type RiskContext } from './risk-context';

type LiquidationDone = Extract<EngineEvent, { type: 'liquidation.done' }>;

/**
 * The engine finished a liquidation order (its fills, and ADL's, were settled before: they come
 * first on the symbol's log). The liquidated user gets the force order (autoCloseType
 * LIQUIDATION) and the order's record (type LIQUIDATION, for allOrders); the liquidation leaves
 * flight and, if it closed anything, the account is checked again, which may send the next step.
 */
export function liquidationDone(ctx: RiskContext, event: LiquidationDone): void {
  const { p, out } = ctx;
  const entry = p.liquidations.get(event.liquidationId);
  if (!entry) return;
  p.liquidations.delete(entry.liquidationId);
  const market = ctx.markets.find(entry.symbol);
  const executed = new Money(entry.executedQty);
  const quote = new Money(entry.cumQuote);
  const avg = executed.gt(0) ? averagePrice(quote, executed) : new Money(0);
  const qty = (x: Money | string) => new Money(x).toFixed(market?.quantityPrecision ?? 8);
  const px = (x: Money | string) => new Money(x).toFixed(market?.pricePrecision ?? 8);
  const updateTime = Math.max(entry.updateTime, event.time);
  out.accountEvents.push({
    type: 'forceOrder',
    user: entry.user,
    forceOrder: {
      orderId: entry.liquidationId,
      symbol: entry.symbol,
      autoCloseType: 'LIQUIDATION',
      side: entry.side,
      price: px(entry.bankruptcyPrice),
      avgPrice: avg.toFixed(),
      origQty: qty(entry.quantity),
      executedQty: qty(executed),
      fee: entry.fee,
      time: entry.time,
      updateTime,
    },
  });
  const record: OrderRecord = {
    orderId: entry.liquidationId,
    user: entry.user,
    symbol: entry.symbol,
    // An IOC remainder ends as the engine's expired orders do here: CANCELED.
    status: executed.gte(entry.quantity) ? 'FILLED' : 'CANCELED',
    clientOrderId: `autoclose-${entry.liquidationId}`,
    price: px(entry.bankruptcyPrice),
    avgPrice: avg.toFixed(),
    origQty: qty(entry.quantity),
    executedQty: qty(executed),
    cumQuote: quote.toFixed(),
    timeInForce: 'IOC',
    type: 'LIQUIDATION',
    origType: 'LIQUIDATION',
    reduceOnly: true,
    side: entry.side,
    positionSide: 'BOTH',
    stopPrice: px('0'),
    workingType: 'CONTRACT_PRICE',
    priceProtect: false,
    selfTradePreventionMode: 'NONE',
    time: entry.time,
    updateTime,
  };
  p.close(record);
  out.closed.push(record);
  out.accountEvents.push({ type: 'order', user: entry.user, order: record });
  balanceEvent(ctx, entry.user);
  // Only after progress: a step that closed nothing (no liquidity, market halted) waits for the
  // next mark rather than looping through the engine.
  if (executed.gt(0)) checkMargins(ctx, [entry.user], 0, event.time, entry.symbol);
}
