import { Money } from '../money/money';

/** GTD: goodTillDate must be at least this far ahead of the request. */
export const MIN_GOOD_TILL_MS = 600_000;

export function isGoodTillDateFarEnough(goodTillDate: number, now: number): boolean {
  return Number.isSafeInteger(goodTillDate) && goodTillDate - now >= MIN_GOOD_TILL_MS;
}

/** A GTD order expires at the first clock time at or after its goodTillDate. */
export function isExpiredAt(goodTillDate: number | undefined, time: number): boolean {
  return goodTillDate !== undefined && time >= goodTillDate;
}

/**
 * priceProtect: a trigger is held (not fired) while the mark and the last price are further apart
 * than `threshold` (a fraction of the mark, the market's triggerProtect). Without a last price
 * there is nothing to compare, so nothing holds it.
 */
export function isPriceProtectHeld(mark: Money, lastPrice: Money | undefined, threshold: Money): boolean {
  if (!lastPrice?.gt(0) || !mark.gt(0)) return false;
  return lastPrice.minus(mark).abs().div(mark).gt(threshold);
}

/**
 * closePosition: the quantity that closes the position at firing. A SELL closes a long, a BUY a
 * short; with no such position there is nothing to close (undefined).
 */
export function closePositionQuantity(
  side: 'BUY' | 'SELL',
  positionSize: Money | undefined,
): Money | undefined {
  if (!positionSize || positionSize.isZero()) return undefined;
  if (side === 'SELL' ? positionSize.lt(0) : positionSize.gt(0)) return undefined;
  return positionSize.abs();
}
