import type { OrderRecord } from '@perp/contracts';
import { averagePrice, averagePriceOfFill, decimal, type Market, Money, parsedOnce } from '@perp/domain';

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

/** Zero at a market's price and quantity precisions ("0.0", "0.000"), formatted once per market. */
const zerosOf = parsedOnce((market: Market) => ({
  price: new Money(0).toFixed(market.pricePrecision),
  qty: new Money(0).toFixed(market.quantityPrecision),
}));

/** The record of an order risk accepted, before the engine has seen it: NEW, nothing executed. */
export function newOrderRecord(cmd: NewOrderFields, quantity: Money, market: Market): OrderRecord {
  const zero = zerosOf(market);
  return {
    orderId: cmd.orderId,
    user: cmd.user,
    symbol: market.symbol,
    status: 'NEW',
    clientOrderId: cmd.clientOrderId,
    price: cmd.price === undefined ? zero.price : decimal(cmd.price).toFixed(market.pricePrecision),
    avgPrice: zero.price,
    origQty: quantity.toFixed(market.quantityPrecision),
    executedQty: zero.qty,
    cumQuote: '0',
    // Spec: GTX is stored as GTC after acceptance.
    timeInForce: cmd.timeInForce === 'GTX' ? 'GTC' : cmd.timeInForce,
    type: cmd.orderType,
    origType: cmd.orderType,
    reduceOnly: cmd.reduceOnly,
    side: cmd.side,
    positionSide: 'BOTH',
    stopPrice:
      cmd.stopPrice === undefined ? zero.price : decimal(cmd.stopPrice).toFixed(market.pricePrecision),
    workingType: cmd.workingType,
    priceProtect: cmd.priceProtect,
    selfTradePreventionMode: cmd.selfTradePreventionMode,
    time: cmd.time,
    updateTime: cmd.time,
  };
}

/** A fill of `qty` at `price`, worth `quote` (price x qty exactly). */
export interface RecordedFill {
  qty: Money;
  price: Money;
  quote: Money;
  time: number;
}

/**
 * Executed quantity, quote and average price after a fill; FILLED when none is left. An order's
 * first fill sets the average to its own price, without dividing the quote back by the quantity.
 */
export function recordFill(record: OrderRecord, fill: RecordedFill, market: Market): OrderRecord {
  const before = decimal(record.executedQty);
  const executed = fill.qty.plus(before);
  const cumQuote = fill.quote.plus(decimal(record.cumQuote));
  const filled = executed.gte(decimal(record.origQty));
  const average = before.isZero() ? averagePriceOfFill(fill.price) : averagePrice(cumQuote, executed);
  return {
    ...record,
    executedQty: executed.toFixed(market.quantityPrecision),
    cumQuote: cumQuote.toFixed(),
    avgPrice: average.toFixed(),
    status: filled ? 'FILLED' : 'PARTIALLY_FILLED',
    updateTime: Math.max(record.updateTime, fill.time),
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
    price: decimal(price).toFixed(market.pricePrecision),
    origQty: decimal(record.executedQty).plus(decimal(openQty)).toFixed(market.quantityPrecision),
    updateTime: Math.max(record.updateTime, time),
  };
}

export function isOpen(record: OrderRecord): boolean {
  return record.status === 'NEW' || record.status === 'PARTIALLY_FILLED';
}
