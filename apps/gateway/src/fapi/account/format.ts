import { type Market, Money } from '@perp/domain';

/** Decimals of balance-like amounts on the wire (Binance style: "0.00000000"). */
export const AMOUNT_DECIMALS = 8;

function nonNegativeZero(x: Money): Money {
  return x.isZero() ? new Money(0) : x;
}

/** A balance, margin, PnL or notional: exactly 8 decimals, half up ("-0.00000000" never appears). */
export function amount(x: Money): string {
  return nonNegativeZero(x.decimalPlaces(AMOUNT_DECIMALS, Money.ROUND_HALF_UP)).toFixed(AMOUNT_DECIMALS);
}

/** A derived price (entry, mark, break-even, liquidation): at most 8 decimals, no trailing zeros. */
export function price(x: Money): string {
  return nonNegativeZero(x.decimalPlaces(AMOUNT_DECIMALS, Money.ROUND_HALF_UP)).toFixed();
}

/** A base quantity at the market's lot precision ("0.090"); exact when the market is unknown. */
export function quantity(x: Money, market: Market | undefined): string {
  const s = market ? x.toFixed(market.quantityPrecision, Money.ROUND_DOWN) : x.toFixed();
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A configured rate such as a fee ("0.0002"): plain notation, exact. */
export function rate(x: Money): string {
  return nonNegativeZero(x).toFixed();
}
