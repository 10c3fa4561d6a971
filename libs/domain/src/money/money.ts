import { Decimal, type DecimalValue } from './decimal';

/**
 * The one decimal type for money (balances, margin, PnL, fees, funding): exact sums and products,
 * division to 18 decimal places (below any asset's precision, so it never loses a unit that
 * matters); results are rounded explicitly at the edge with the market's or asset's scale.
 */
export const Money = Decimal;
export type Money = Decimal;
/** What Money's methods take: a Money, a decimal text or a number. */
export type MoneyValue = DecimalValue;
export type { RoundingModeNumber } from './decimal';

/** x > 0 and x < 0 from the sign alone: the answers of `x.gt(0)` and `x.lt(0)`, NaN included. */
export const isAboveZero = (x: Money): boolean => x.isPositive() && !x.isZero();
export const isBelowZero = (x: Money): boolean => x.isNegative() && !x.isZero();

/** Distinct texts `decimal` and `parseDecimal` keep before they start over, and the longest kept. */
const KEPT_TEXTS = 4096;
const KEPT_LENGTH = 40;

/**
 * Parsed once per distinct text: a parse (a regular expression and a BigInt) takes a few tenths of
 * a µs, a Map lookup a hundredth.
 * Longer texts than any price or quantity are parsed each time (a client's could be anything).
 */
function keptParses<V>(parse: (text: string) => V): (text: string) => V {
  const kept = new Map<string, V>();
  return (text) => {
    if (text.length > KEPT_LENGTH) return parse(text);
    let v = kept.get(text);
    if (v === undefined && !kept.has(text)) {
      if (kept.size >= KEPT_TEXTS) kept.clear();
      kept.set(text, (v = parse(text)));
    }
    return v as V;
  };
}

/**
 * The Money of a decimal text that is known to be one (an engine event's price or quantity, a
 * stored record's figures). Prices and quantities repeat from fill to fill, and Money values are
 * immutable, so each distinct text is parsed once and its value shared.
 */
export const decimal: (text: string) => Money = keptParses((text) => new Money(text));

/**
 * The longest text `parseDecimal` reads: far beyond any amount (20 + 20 digits on FAPI), and short
 * enough that a client's text costs microseconds (a BigInt of 1,000 digits takes 3 µs to read and
 * 14 to write; one of a million digits a quarter of a second and twice that).
 */
export const MAX_DECIMAL_TEXT = 1_000;

const parseDecimalText = keptParses((text): Money | undefined => {
  if (text.length > MAX_DECIMAL_TEXT) return undefined;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text.trim())) return undefined;
  const parsed = new Money(text.trim());
  return parsed.isFinite() ? parsed : undefined;
});

/**
 * Parses a decimal string strictly: finite, plain decimal notation, no exponent, no hex, at most
 * MAX_DECIMAL_TEXT characters.
 */
export function parseDecimal(value: unknown): Money | undefined {
  if (typeof value === 'number') value = Number.isFinite(value) ? String(value) : '';
  return typeof value === 'string' ? parseDecimalText(value) : undefined;
}

/** Number of decimals in a step such as "0.001" (3) or "1" (0). */
export function decimalsOf(step: string): number {
  return new Money(step).decimalPlaces() ?? 0;
}
