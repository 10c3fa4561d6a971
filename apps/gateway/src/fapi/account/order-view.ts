import type { OrderRecord } from '@perp/contracts';
import type { OrderEntity } from '@perp/persistence';

/** The FAPI Order record as the query endpoints answer it. */
export interface OrderView {
  orderId: string;
  symbol: string;
  status: string;
  clientOrderId: string;
  price: string;
  avgPrice: string;
  origQty: string;
  executedQty: string;
  cumQuote: string;
  timeInForce: string;
  type: string;
  reduceOnly: boolean;
  side: string;
  positionSide: string;
  stopPrice: string;
  workingType: string;
  priceProtect: boolean;
  origType: string;
  selfTradePreventionMode: string;
  time: number;
  updateTime: number;
}

/**
 * The spec's Order record (plus selfTradePreventionMode), the same fields New Order answers with,
 * so a client sees one shape for an order whichever endpoint returns it.
 */
export function orderView(r: Omit<OrderRecord, 'user' | 'status'> & { status: string }): OrderView {
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
    reduceOnly: r.reduceOnly,
    side: r.side,
    positionSide: r.positionSide,
    stopPrice: r.stopPrice,
    workingType: r.workingType,
    priceProtect: r.priceProtect,
    origType: r.origType,
    selfTradePreventionMode: r.selfTradePreventionMode,
    time: r.time,
    updateTime: r.updateTime,
  };
}

/** An order history row (Postgres) as an Order record view; numeric columns come back as text. */
export function orderEntityView(e: OrderEntity): OrderView {
  return orderView({
    orderId: e.id,
    symbol: e.symbol,
    status: e.status,
    clientOrderId: e.clientOrderId,
    price: e.price,
    avgPrice: e.avgPrice,
    origQty: e.origQty,
    executedQty: e.executedQty,
    cumQuote: e.cumQuote,
    timeInForce: e.timeInForce,
    type: e.type,
    origType: e.origType,
    reduceOnly: e.reduceOnly,
    side: e.side,
    positionSide: 'BOTH',
    stopPrice: e.stopPrice,
    workingType: e.workingType,
    priceProtect: e.priceProtect,
    selfTradePreventionMode: e.selfTradePreventionMode,
    time: e.createdAt,
    updateTime: e.updatedAt,
  });
}

export function isOpenStatus(status: string): boolean {
  return status === 'NEW' || status === 'PARTIALLY_FILLED';
}
