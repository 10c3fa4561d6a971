import { Money } from '../money/money';
import type { Market } from './market';
import { parsedOnce } from './parsed-once';

/** The book's integer bounds (order-book.ts): an order's quantity in lots, a price in ticks. */
export const MAX_ORDER_LOTS = 2 ** 40;
export const MAX_PRICE_TICKS = 2 ** 48;
/** The largest quantity and price in units where a market's steps allow it. */
const MAX_UNITS = new Money(1_000_000_000);

const least = (a: Money, b: Money) => (a.lt(b) ? a : b);

/**
 * A market's largest order quantity and price (exchangeInfo's LOT_SIZE and PRICE_FILTER maxima):
 * 1e9 units, or less where the book's integer bounds come first (a lot or a tick that small).
 */
export const orderLimits = parsedOnce((m: Market) => ({
  maxQty: least(MAX_UNITS, new Money(MAX_ORDER_LOTS).times(m.lotSize)),
  maxPrice: least(MAX_UNITS, new Money(MAX_PRICE_TICKS).times(m.tickSize)),
}));
