import { Money } from '../money/money';
import { type DecimalInput, toMoney } from './decimal';

/** The margin Binance sizes the impact notional with: 200 USDT at the market's maximum leverage. */
export const IMPACT_MARGIN_USDT = '200';

/** A price level, best first as `DepthBook.top()` returns them: [price, quantity]. */
export type PriceLevelInput = readonly [price: DecimalInput, qty: DecimalInput];

/** Both sides of a book, best levels first. */
export interface BookSides {
  bids: readonly PriceLevelInput[];
  asks: readonly PriceLevelInput[];
}

/**
 * Impact margin notional (IMN) = margin / initial margin rate at the maximum leverage
 * = margin × maxLeverage: 25,000 USDT for a 125x market, 2,000 USDT for 10x.
 */
export function impactMarginNotional(maxLeverage: number, margin: DecimalInput = IMPACT_MARGIN_USDT): Money {
  if (!Number.isInteger(maxLeverage) || maxLeverage < 1)
    throw new RangeError(`maxLeverage must be a positive integer: ${maxLeverage}`);
  const m = toMoney(margin, 'impact margin');
  if (!m.gt(0)) throw new RangeError(`impact margin must be positive: ${m.toFixed()}`);
  return m.times(maxLeverage);
}

/**
 * The average fill price of a market order of `notional` (quote) sweeping `levels` from the best:
 * notional / quantity filled. Undefined when the side holds less than `notional`. Levels of zero
 * quantity are skipped. Computed with one division, IMN × p / (Q × p + rest), where Q is the
 * quantity of the levels taken whole, p the price of the last level touched and rest the notional
 * taken from it, so the only rounding is Money's (18 places, down).
 */
export function impactPrice(levels: readonly PriceLevelInput[], notional: DecimalInput): Money | undefined {
  const target = toMoney(notional, 'impact notional');
  if (!target.gt(0)) throw new RangeError(`impact notional must be positive: ${target.toFixed()}`);
  let filled = new Money(0);
  let qty = new Money(0);
  for (const [p, q] of levels) {
    const price = toMoney(p, 'level price');
    const size = toMoney(q, 'level quantity');
    if (!price.gt(0)) throw new RangeError(`level price must be positive: ${price.toFixed()}`);
    if (size.lt(0)) throw new RangeError(`level quantity must be >= 0: ${size.toFixed()}`);
    const levelNotional = price.times(size);
    const rest = target.minus(filled);
    if (levelNotional.gte(rest)) return target.times(price).div(qty.times(price).plus(rest));
    filled = filled.plus(levelNotional);
    qty = qty.plus(size);
  }
  return undefined;
}

export interface ImpactPrices {
  /** Average price of selling `notional` into the bids; undefined when the bids hold less. */
  impactBid: Money | undefined;
  /** Average price of buying `notional` from the asks; undefined when the asks hold less. */
  impactAsk: Money | undefined;
}

export function impactPrices(book: BookSides, notional: DecimalInput): ImpactPrices {
  return { impactBid: impactPrice(book.bids, notional), impactAsk: impactPrice(book.asks, notional) };
}
