import { Money, parseDecimal } from '../money/money';

/** A decimal as the callers hold it: Money, or a plain decimal string as on the wire. */
export type DecimalInput = Money | string;

/** The value as Money; a string must be a plain decimal (no exponent, no float noise). */
export function toMoney(x: DecimalInput, what: string): Money {
  const m = typeof x === 'string' ? parseDecimal(x) : x.isFinite() ? x : undefined;
  if (!m) throw new RangeError(`${what} is not a finite decimal: ${String(x)}`);
  return m;
}
