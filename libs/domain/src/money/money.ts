import BigNumber from 'bignumber.js';

/**
 * The one configured decimal type for money (balances, margin, PnL, fees, funding).
 * 18 decimal places is below any asset's precision, so division never loses a unit that matters;
 * results are rounded explicitly at the edge with the market's or asset's scale.
 */
export const Money = BigNumber.clone({
  DECIMAL_PLACES: 18,
  ROUNDING_MODE: BigNumber.ROUND_DOWN,
  EXPONENTIAL_AT: [-40, 60],
});
export type Money = BigNumber;

/** Parses a decimal string strictly: finite, plain decimal notation, no exponent, no hex. */
export function parseDecimal(value: unknown): Money | undefined {
  if (typeof value === 'number') value = Number.isFinite(value) ? String(value) : '';
  if (typeof value !== 'string' || !/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value.trim())) return undefined;
  const parsed = new Money(value.trim());
  return parsed.isFinite() ? parsed : undefined;
}

/** Number of decimals in a step such as "0.001" (3) or "1" (0). */
export function decimalsOf(step: string): number {
  return new Money(step).decimalPlaces() ?? 0;
}
