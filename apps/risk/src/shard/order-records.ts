import type { OrderRecord } from '@perp/contracts';
import { type Market, Money } from '@perp/domain';

/** What a New Order command says about the order, for its record. */
export interface NewOrderFields {
  orderId: string;
  clientOrderId: string;
  user: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  orderType: string;
  timeInForce: string;
  price?: string;
  stopPrice?: string;
  reduceOnly: boolean;
  workingType: string;
  priceProtect: boolean;
  selfTradePreventionMode: string;
  time: number;
}

const AVG_PRICE_DECIMALS = 8;

/** The record of an order risk accepted, before the engine has seen it: NEW, nothing executed. */
export function newOrderRecord(cmd: NewOrderFields, quantity: Money, market: Market): OrderRecord {
  return {
    orderId: cmd.orderId,
    user: cmd.user,
    symbol: market.symbol,
    status: 'NEW',
    clientOrderId: cmd.clientOrderId,
    price: new Money(cmd.price ?? 0).toFixed(market.pricePrecision),
    avgPrice: new Money(0).toFixed(market.pricePrecision),
    origQty: quantity.toFixed(market.quantityPrecision),
    executedQty: new Money(0).toFixed(market.quantityPrecision),
    cumQuote: '0',
    // Spec: GTX is stored as GTC after acceptance.
    timeInForce: cmd.timeInForce === 'GTX' ? 'GTC' : cmd.timeInForce,
    type: cmd.orderType,
    origType: cmd.orderType,
    reduceOnly: cmd.reduceOnly,
    side: cmd.side,
    positionSide: 'BOTH',
    stopPrice: new Money(cmd.stopPrice ?? 0).toFixed(market.pricePrecision),
    workingType: cmd.workingType,
    priceProtect: cmd.priceProtect,
    selfTradePreventionMode: cmd.selfTradePreventionMode,
    time: cmd.time,
    updateTime: cmd.time,
  };
}

/** A fill of `qty` at `price`: executed quantity, quote and average price; FILLED when none is left. */
export function recordFill(
  record: OrderRecord,
  price: string,
  qty: string,
  time: number,
  market: Market,
): OrderRecord {
  const executed = new Money(record.executedQty).plus(qty);
  const cumQuote = new Money(record.cumQuote).plus(new Money(price).times(qty));
  const filled = executed.gte(record.origQty);
  return {
    ...record,
    executedQty: executed.toFixed(market.quantityPrecision),
    cumQuote: cumQuote.toFixed(),
    avgPrice: cumQuote.div(executed).decimalPlaces(AVG_PRICE_DECIMALS, Money.ROUND_HALF_UP).toFixed(),
    status: filled ? 'FILLED' : 'PARTIALLY_FILLED',
    updateTime: Math.max(record.updateTime, time),
  };
}

/** Cancel, expiry (IOC/FOK remainder, STP, delisting) or rejection ends the order. */
export function recordClosed(
  record: OrderRecord,
  status: 'CANCELED' | 'REJECTED',
  time: number,
): OrderRecord {
  return { ...record, status, updateTime: Math.max(record.updateTime, time) };
}

/** An amend: the new price and open quantity (the engine's amend takes the open quantity). */
export function recordAmended(
  record: OrderRecord,
  price: string,
  openQty: string,
  time: number,
  market: Market,
): OrderRecord {
  return {
    ...record,
    price: new Money(price).toFixed(market.pricePrecision),
    origQty: new Money(record.executedQty).plus(openQty).toFixed(market.quantityPrecision),
    updateTime: Math.max(record.updateTime, time),
  };
}

export function isOpen(record: OrderRecord): boolean {
  return record.status === 'NEW' || record.status === 'PARTIALLY_FILLED';
}
