import { Money } from '../money/money';

/**
 * num / den, and 0 when den is 0. The futures-data endpoints must answer a finite decimal string;
 * 0 with a zero denominator is documented (README), and the shares or volumes beside the ratio tell
 * "nothing at all" from "one side only".
 */
export function ratioOrZero(num: Money, den: Money): Money {
  return den.isZero() ? new Money(0) : num.div(den);
}

/** Futures-data figures as Binance renders them: fixed decimals, rounded half up. */
export function statDecimal(v: Money, decimals: number): string {
  return v.toFixed(decimals, Money.ROUND_HALF_UP);
}
