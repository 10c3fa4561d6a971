import type BigNumber from 'bignumber.js';
import { Money } from '../money/money';

/** Scale of settled amounts (commission, funding, margin, the cost released on a partial close). */
export const SETTLEMENT_DECIMALS = 8;

export type RoundingMode = 'down' | 'up' | 'half-even';

/**
 * a / b rounded to `dp` decimals, exactly: integer division plus the exact remainder, so a
 * quotient that does not terminate within Money's 18 places still rounds the right way.
 * Both operands must be non-negative, b positive.
 */
export function divide(a: Money, b: BigNumber.Value, dp: number, mode: RoundingMode): Money {
  const divisor = new Money(b);
  if (a.lt(0) || !divisor.gt(0)) throw new Error('divide: a >= 0 and b > 0 expected');
  const n = a.shiftedBy(dp);
  const q = n.idiv(divisor);
  const r = n.minus(q.times(divisor));
  let up = false;
  if (!r.isZero()) {
    if (mode === 'up') up = true;
    else if (mode === 'half-even') {
      const twice = r.times(2);
      up = twice.gt(divisor) || (twice.eq(divisor) && !q.mod(2).isZero());
    }
  }
  return (up ? q.plus(1) : q).shiftedBy(-dp);
}

/** x x num / den rounded to `dp` decimals (a pro-rata share), for x, num >= 0 and den > 0. */
export function proRata(x: Money, num: Money, den: Money, dp: number, mode: RoundingMode): Money {
  return divide(x.times(num), den, dp, mode);
}

export function ceilTo(x: Money, dp = SETTLEMENT_DECIMALS): Money {
  return x.decimalPlaces(dp, Money.ROUND_CEIL);
}

export function floorTo(x: Money, dp = SETTLEMENT_DECIMALS): Money {
  return x.decimalPlaces(dp, Money.ROUND_FLOOR);
}

export const ZERO = new Money(0);
