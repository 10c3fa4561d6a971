import type { AlgoOrderRecord, OrderRecord } from '@perp/contracts';
import { type Market, Money } from '@perp/domain';
import { quantity } from '../../fapi/account/format';
import { isOpenStatus, orderView, type OrderView } from '../../fapi/account/order-view';

/**
 * An order on the native API: snake_case, enumerations in lowercase, quantities at the market's
 * lot precision, null where a figure does not apply (a market order's price, the average price
 * of an order with no fill), times as ISO 8601 UTC strings like every native timestamp.
 */
export interface NativeOrderView {
  id: string;
  client_order_id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  status: string;
  time_in_force: string;
  reduce_only: boolean;
  price: string | null;
  quantity: string;
  filled_quantity: string;
  /** Still working in the book: quantity - filled for an open order, 0 once it is done. */
  remaining_quantity: string;
  average_price: string | null;
  /** Sum of price x quantity of the fills (USDT). */
  filled_notional: string;
  created_at: string;
  updated_at: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The native view of an order, from the FAPI record view (the same for hot records and Postgres rows). */
export function nativeOrderView(o: OrderView, market: Market | undefined): NativeOrderView {
  const orig = new Money(o.origQty);
  const filled = new Money(o.executedQty);
  const open = isOpenStatus(o.status);
  return {
    id: o.orderId,
    client_order_id: o.clientOrderId,
    symbol: o.symbol,
    side: o.side === 'SELL' ? 'sell' : 'buy',
    type: o.type.toLowerCase(),
    status: o.status.toLowerCase(),
    time_in_force: o.timeInForce.toLowerCase(),
    reduce_only: o.reduceOnly,
    price: o.type === 'MARKET' ? null : o.price,
    quantity: quantity(orig, market),
    filled_quantity: quantity(filled, market),
    remaining_quantity: quantity(open ? Money.max(orig.minus(filled), 0) : new Money(0), market),
    average_price: filled.gt(0) ? o.avgPrice : null,
    filled_notional: new Money(o.cumQuote).toFixed(),
    created_at: iso(o.time),
    updated_at: iso(o.updateTime),
  };
}

/** The native view of a risk order record (New Order and cancel answers, open orders). */
export function nativeRecordView(r: OrderRecord, market: Market | undefined): NativeOrderView {
  return nativeOrderView(orderView(r), market);
}

/** A conditional (stop or take-profit) order on the native API: the algo order, in native words. */
export interface NativeConditionalView {
  /** The algo order id, digits (order ids of ordinary orders are UUIDs). */
  id: string;
  client_order_id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  /** new (waiting), triggered, finished, canceled, expired, failed. */
  status: string;
  trigger_price: string;
  price: string | null;
  quantity: string;
  reduce_only: boolean;
  /** The order it fired as; null while it waits. */
  order_id: string | null;
  created_at: string;
  updated_at: string;
}

const NATIVE_CONDITIONAL_NAMES: Record<string, string> = {
  STOP: 'stop_limit',
  STOP_MARKET: 'stop_market',
  TAKE_PROFIT: 'take_profit_limit',
  TAKE_PROFIT_MARKET: 'take_profit_market',
  TRAILING_STOP_MARKET: 'trailing_stop_market',
};

export function nativeConditionalView(r: AlgoOrderRecord): NativeConditionalView {
  const limit = r.orderType === 'STOP' || r.orderType === 'TAKE_PROFIT';
  return {
    id: String(r.algoId),
    client_order_id: r.clientAlgoId,
    symbol: r.symbol,
    side: r.side === 'SELL' ? 'sell' : 'buy',
    type: NATIVE_CONDITIONAL_NAMES[r.orderType] ?? r.orderType.toLowerCase(),
    status: r.algoStatus.toLowerCase(),
    trigger_price: r.triggerPrice,
    price: limit ? r.price : null,
    quantity: r.quantity,
    reduce_only: r.reduceOnly,
    order_id: r.actualOrderId || null,
    created_at: iso(r.createTime),
    updated_at: iso(r.updateTime),
  };
}
