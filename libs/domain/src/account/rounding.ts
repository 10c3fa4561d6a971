import type BigNumber from 'bignumber.js';
import { isAboveZero, isBelowZero, Money } from '../money/money';

/** Scale of settled amounts (commission, funding, margin, the cost released on a partial close). */
export const SETTLEMENT_DECIMALS = 8;

export type RoundingMode = 'down' | 'up' | 'half-even';

/** A Money constructor dividing at `dp` places in one rounding mode (bignumber.js rounds exactly). */
const dividers = new Map<string, typeof Money>();
const MODES = { down: Money.ROUND_DOWN, up: Money.ROUND_UP, 'half-even': Money.ROUND_HALF_EVEN } as const;
function dividerOf(dp: number, mode: RoundingMode): typeof Money {
  const key = `${dp} ${mode}`;
  let d = dividers.get(key);
  if (d === undefined)
    dividers.set(key, (d = Money.clone({ DECIMAL_PLACES: dp, ROUNDING_MODE: MODES[mode] })));
  return d;
}

/**
 * a / b rounded to `dp` decimals, exactly: bignumber.js's division rounds on the remainder, not on
 * a truncated quotient, so a quotient that does not terminate within Money's 18 places still
 * rounds the right way. Both operands must be non-negative, b positive.
 */
export function divide(a: Money, b: BigNumber.Value, dp: number, mode: RoundingMode): Money {
  const Divider = dividerOf(dp, mode);
  const divisor = new Divider(b);
  if (isBelowZero(a) || !isAboveZero(divisor)) throw new Error('divide: a >= 0 and b > 0 expected');
  // Back to Money: a value of the divider's constructor would round later arithmetic at `dp`.
  return new Money(new Divider(a).div(divisor));
}

/** x x num / den rounded to `dp` decimals (a pro-rata share), for x, num >= 0 and den > 0. */
export function proRata(x: Money, num: Money, den: Money, dp: number, mode: RoundingMode): Money {
  return divide(x.times(num), den, dp, mode);
}

/** Decimals of an average fill price (an order's or a liquidation's avgPrice). */
const AVERAGE_PRICE_DECIMALS = 8;

/**
 * The average price of fills worth `quote` for `qty` (> 0): quote / qty rounded half-up to 8
 * decimals. Money's 18-place quotient is truncated, which never carries it across an 8-place
 * midpoint, so this equals the exact half-up division.
 */
export function averagePrice(quote: Money, qty: Money): Money {
  return quote.div(qty).decimalPlaces(AVERAGE_PRICE_DECIMALS, Money.ROUND_HALF_UP);
}

/**
 * averagePrice of a single fill at `price` (quote = price x qty), without the division: the quotient
 * is the price itself, so only the rounding is left.
 */
export function averagePriceOfFill(price: Money): Money {
  return price.decimalPlaces(AVERAGE_PRICE_DECIMALS, Money.ROUND_HALF_UP);
}

export function ceilTo(x: Money, dp = SETTLEMENT_DECIMALS): Money {
  return x.decimalPlaces(dp, Money.ROUND_CEIL);
}

export function floorTo(x: Money, dp = SETTLEMENT_DECIMALS): Money {
  return x.decimalPlaces(dp, Money.ROUND_FLOOR);
}

export const ZERO = new Money(0);
