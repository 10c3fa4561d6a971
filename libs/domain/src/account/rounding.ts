import { isAboveZero, isBelowZero, Money, type MoneyValue } from '../money/money';

/** Scale of settled amounts (commission, funding, margin, the cost released on a partial close). */
export const SETTLEMENT_DECIMALS = 8;

export type RoundingMode = 'down' | 'up' | 'half-even';

const MODES = { down: Money.ROUND_DOWN, up: Money.ROUND_UP, 'half-even': Money.ROUND_HALF_EVEN } as const;

/**
 * a / b rounded to `dp` decimals, exactly: the division rounds on the remainder, not on a truncated
 * quotient, so a quotient that does not terminate within Money's 18 places still rounds the right
 * way. Both operands must be non-negative, b positive.
 */
export function divide(a: Money, b: MoneyValue, dp: number, mode: RoundingMode): Money {
  const divisor = Money.of(b);
  if (isBelowZero(a) || !isAboveZero(divisor)) throw new Error('divide: a >= 0 and b > 0 expected');
  return a.dividedToPlaces(divisor, dp, MODES[mode]);
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
