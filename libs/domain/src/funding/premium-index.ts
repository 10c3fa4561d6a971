import { Money } from '../money/money';

const ZERO = new Money(0);

/**
 * One premium index sample, Binance's formula:
 * (max(0, impact bid − index) − max(0, index − impact ask)) / index.
 * A missing impact price (that side of the book cannot fill the impact notional) contributes 0, so
 * the premium is taken from the side that can; with neither side it is 0. Undefined only when the
 * index is missing or not positive (the price is unavailable: no sample is taken).
 */
export function premiumIndexOf(
  index: Money | undefined,
  impactBid: Money | undefined,
  impactAsk: Money | undefined,
): Money | undefined {
  if (!index?.gt(0)) return undefined;
  const above = impactBid ? Money.max(ZERO, impactBid.minus(index)) : ZERO;
  const below = impactAsk ? Money.max(ZERO, index.minus(impactAsk)) : ZERO;
  return above.minus(below).div(index);
}
