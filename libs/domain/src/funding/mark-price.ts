import { Money } from '../money/money';
import { toMoney } from './decimal';
import { nextFundingTime } from './funding-times';
import type { BookSides } from './impact-price';

/** Mark prices are published with 8 decimals, as Binance shows them. */
export const MARK_PRICE_DECIMALS = 8;

/**
 * One basis sample for the mark price: mid of the best bid and ask − index. Undefined when a side
 * of the book is empty or the index is missing or not positive (no sample is taken).
 */
export function basisSample(book: BookSides, index: Money | undefined): Money | undefined {
  const bid = book.bids[0];
  const ask = book.asks[0];
  if (!bid || !ask || !index?.gt(0)) return undefined;
  return toMoney(bid[0], 'best bid').plus(toMoney(ask[0], 'best ask')).div(2).minus(index);
}

/**
 * Price 1 of the mark: index × (1 + funding rate × time until funding / interval), the time
 * until funding being in (0, interval] (a full interval at a funding time itself).
 */
export function fundingBasisPrice(index: Money, fundingRate: Money, time: number, intervalMs: number): Money {
  const remaining = nextFundingTime(time, intervalMs) - time;
  return index.times(fundingRate.times(remaining).plus(intervalMs)).div(intervalMs);
}

/** The middle one of three values. */
export function median3(a: Money, b: Money, c: Money): Money {
  return Money.max(Money.min(a, b), Money.min(Money.max(a, b), c));
}

export interface MarkPriceInputs {
  time: number;
  intervalMs: number;
  index: Money | undefined;
  /** Binance's "last funding rate": the current interval's clamped rate (the running estimate). */
  fundingRate: Money;
  /** `MovingAverage.average(time)` of the basis samples; undefined when none is in the window. */
  basisAverage: Money | undefined;
  /** The last traded price; undefined before the market's first trade. */
  lastPrice: Money | undefined;
  /** Decimals of the result (half-even); MARK_PRICE_DECIMALS unless given. */
  decimals?: number;
}

/**
 * Binance's mark price: median(price 1, price 2, last price), with price 1 =
 * `fundingBasisPrice` and price 2 = index + basis moving average. A missing price 2 or last price
 * is replaced by price 1, so with either missing the mark is price 1 (the index-anchored price
 * cannot be moved by a thin book or an old trade). Undefined without a positive index: no mark
 * while the price is unavailable. Rounded half-even to 8 decimals.
 */
export function markPriceOf(i: MarkPriceInputs): Money | undefined {
  if (!i.index?.gt(0)) return undefined;
  const p1 = fundingBasisPrice(i.index, i.fundingRate, i.time, i.intervalMs);
  const p2 = i.basisAverage ? i.index.plus(i.basisAverage) : p1;
  const mark = median3(p1, p2, i.lastPrice ?? p1);
  return mark.decimalPlaces(i.decimals ?? MARK_PRICE_DECIMALS, Money.ROUND_HALF_EVEN);
}
