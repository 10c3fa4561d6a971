/**
 * Exact decimals on BigInt: a sign, a magnitude and a scale (value = sign × digits / 10^scale).
 * Why this module is long: it is one type, whose methods share its private helpers (rounding,
 * alignment, the canonical form), and splitting it would only export those.
 *
 * The methods, results and strings are bignumber.js's, configured as money was before this type
 * (18 decimal places for division, ROUND_DOWN by default, plain notation from 1e-39 to 1e59),
 * including its signed zero, NaN and ±Infinity; `decimal.spec.ts` checks every method against
 * bignumber.js. Why not bignumber.js itself: it copies every argument (a comparison allocates) and
 * keeps digits in arrays, and settlement spends most of its time and garbage there; BigInt sums
 * and products are several times cheaper. Not supported: non-decimal bases and prefixes ('0x1f').
 */

export type DecimalValue = string | number | Decimal;

/** Rounding modes, numbered as bignumber.js numbers them. */
export type RoundingModeNumber = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

const ROUND_UP = 0;
const ROUND_DOWN = 1;
const ROUND_CEIL = 2;
const ROUND_FLOOR = 3;
const ROUND_HALF_UP = 4;
const ROUND_HALF_DOWN = 5;
const ROUND_HALF_EVEN = 6;
const ROUND_HALF_CEIL = 7;
const ROUND_HALF_FLOOR = 8;

/** Division's decimal places and default rounding, and where toString switches to exponents. */
const DECIMAL_PLACES = 18;
const DEFAULT_ROUNDING: RoundingModeNumber = ROUND_DOWN;
const EXP_NEG = -40;
const EXP_POS = 60;

/**
 * Decimal exponents beyond this magnitude in a text make ±Infinity or a signed zero (bignumber.js
 * does so beyond 1e9): a magnitude is a BigInt of all its digits, and a few characters ('1e999999999')
 * must not ask for a billion of them.
 */
const MAX_EXPONENT = 10_000;

/** Powers of ten kept; larger ones (rare) are computed each time. */
const KEPT_POWERS = 400;
const POWERS: bigint[] = [1n];
function pow10(n: number): bigint {
  if (n >= KEPT_POWERS) return 10n ** BigInt(n);
  let p = POWERS[n];
  if (p === undefined) {
    for (let i = POWERS.length; i <= n; i++) POWERS.push(POWERS[i - 1]! * 10n);
    p = POWERS[n]!;
  }
  return p;
}

const P8 = 10n ** 8n;
const P4 = 10n ** 4n;

/**
 * The one representation of a value: no trailing zero after the point, so equal values are equal
 * objects field by field (deep equality in tests, structural comparisons) as in bignumber.js.
 */
function canonical(sign: number, digits: bigint, scale: number): Decimal {
  if (scale > 0 && digits % 10n === 0n) {
    if (digits === 0n) scale = 0;
    else {
      while (scale >= 8 && digits % P8 === 0n) {
        digits /= P8;
        scale -= 8;
      }
      while (scale >= 4 && digits % P4 === 0n) {
        digits /= P4;
        scale -= 4;
      }
      while (scale > 0 && digits % 10n === 0n) {
        digits /= 10n;
        scale--;
      }
    }
  }
  return new Decimal(RAW, sign, digits, scale);
}

const NUMERIC = /^(\d+(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?$/i;
const RAW: unique symbol = Symbol('raw');

/** Whether q (the quotient so far, magnitude) goes up one for a remainder r of divisor d. */
function roundsUp(q: bigint, r: bigint, d: bigint, rm: number, negative: boolean): boolean {
  if (r === 0n) return false;
  switch (rm) {
    case ROUND_UP:
      return true;
    case ROUND_DOWN:
      return false;
    case ROUND_CEIL:
      return !negative;
    case ROUND_FLOOR:
      return negative;
  }
  const twice = r * 2n;
  if (twice !== d) return twice > d;
  switch (rm) {
    case ROUND_HALF_UP:
      return true;
    case ROUND_HALF_DOWN:
      return false;
    case ROUND_HALF_EVEN:
      return (q & 1n) === 1n;
    case ROUND_HALF_CEIL:
      return !negative;
    default:
      return negative; // ROUND_HALF_FLOOR
  }
}

function checkRounding(rm: number | undefined): number {
  if (rm === undefined || rm === null) return DEFAULT_ROUNDING;
  if (!Number.isInteger(rm) || rm < 0 || rm > 8)
    throw new Error(`[Decimal] rounding mode out of range: ${rm}`);
  return rm;
}

function checkPlaces(dp: number): number {
  if (!Number.isInteger(dp) || dp < 0 || dp > 1e9)
    throw new Error(`[Decimal] decimal places out of range: ${dp}`);
  return dp;
}

/** `digits` / 10^scale in plain notation, no sign. */
function plain(text: string, scale: number): string {
  if (scale === 0) return text;
  if (text.length > scale) return `${text.slice(0, text.length - scale)}.${text.slice(text.length - scale)}`;
  return `0.${'0'.repeat(scale - text.length)}${text}`;
}

export class Decimal {
  static readonly ROUND_UP = ROUND_UP;
  static readonly ROUND_DOWN = ROUND_DOWN;
  static readonly ROUND_CEIL = ROUND_CEIL;
  static readonly ROUND_FLOOR = ROUND_FLOOR;
  static readonly ROUND_HALF_UP = ROUND_HALF_UP;
  static readonly ROUND_HALF_DOWN = ROUND_HALF_DOWN;
  static readonly ROUND_HALF_EVEN = ROUND_HALF_EVEN;
  static readonly ROUND_HALF_CEIL = ROUND_HALF_CEIL;
  static readonly ROUND_HALF_FLOOR = ROUND_HALF_FLOOR;

  /** 1 or -1 (zeros are signed too); NaN for NaN. */
  readonly sign: number;
  /** The magnitude's digits; -1n for ±Infinity and NaN. */
  readonly digits: bigint;
  /** Decimal places of `digits` (0 or more). */
  readonly scale: number;

  constructor(value: DecimalValue);
  /** @internal */
  constructor(value: typeof RAW, sign: number, digits: bigint, scale: number);
  constructor(value: DecimalValue | typeof RAW, sign = 1, digits = 0n, scale = 0) {
    if (value === RAW) {
      this.sign = sign;
      this.digits = digits;
      this.scale = scale;
      return;
    }
    if (value instanceof Decimal) {
      this.sign = value.sign;
      this.digits = value.digits;
      this.scale = value.scale;
      return;
    }
    const [s, d, e] = typeof value === 'number' ? fromNumber(value) : fromString(String(value));
    this.sign = s;
    this.digits = d;
    this.scale = e;
  }

  /** v as a Decimal: itself when it is one, a shared value for small integers (`x.gt(0)`). */
  static of(v: DecimalValue): Decimal {
    if (v instanceof Decimal) return v;
    if (typeof v === 'number' && v >= -SMALL && v <= SMALL && Number.isInteger(v) && !Object.is(v, -0))
      return SMALL_INTEGERS[v + SMALL]!;
    return new Decimal(v);
  }

  static max(...values: DecimalValue[]): Decimal {
    return maxOrMin(values, 1);
  }

  static min(...values: DecimalValue[]): Decimal {
    return maxOrMin(values, -1);
  }

  // ---- predicates ----

  isFinite(): boolean {
    return this.digits >= 0n;
  }

  isZero(): boolean {
    return this.digits === 0n;
  }

  /** Sign only, as bignumber.js: +0 is positive, -0 negative, NaN neither. */
  isPositive(): boolean {
    return this.sign > 0;
  }

  isNegative(): boolean {
    return this.sign < 0;
  }

  // ---- comparison ----

  /** 1, -1 or 0; null when either is NaN. */
  comparedTo(y: DecimalValue): number | null {
    return compare(this, Decimal.of(y));
  }

  eq(y: DecimalValue): boolean {
    return compare(this, Decimal.of(y)) === 0;
  }

  gt(y: DecimalValue): boolean {
    return compare(this, Decimal.of(y)) === 1;
  }

  gte(y: DecimalValue): boolean {
    const c = compare(this, Decimal.of(y));
    return c === 1 || c === 0;
  }

  lt(y: DecimalValue): boolean {
    return compare(this, Decimal.of(y)) === -1;
  }

  lte(y: DecimalValue): boolean {
    const c = compare(this, Decimal.of(y));
    return c === -1 || c === 0;
  }

  // ---- arithmetic ----

  abs(): Decimal {
    return this.sign < 0 ? new Decimal(RAW, 1, this.digits, this.scale) : this;
  }

  negated(): Decimal {
    return new Decimal(RAW, -this.sign, this.digits, this.scale);
  }

  plus(y: DecimalValue): Decimal {
    return add(this, Decimal.of(y), 1);
  }

  minus(y: DecimalValue): Decimal {
    return add(this, Decimal.of(y), -1);
  }

  times(y: DecimalValue): Decimal {
    const b = Decimal.of(y);
    const sign = this.sign * b.sign;
    if (sign !== sign) return NAN;
    if (this.digits < 0n || b.digits < 0n) {
      if (this.digits === 0n || b.digits === 0n) return NAN;
      return sign > 0 ? INFINITY : NEG_INFINITY;
    }
    return canonical(sign, this.digits * b.digits, this.scale + b.scale);
  }

  /** Divided by y, to 18 decimal places, rounded down (bignumber.js's money configuration). */
  div(y: DecimalValue): Decimal {
    return divide(this, Decimal.of(y), DECIMAL_PLACES, DEFAULT_ROUNDING);
  }

  /** Divided by y, to `dp` decimal places, rounded by `rm`. */
  dividedToPlaces(y: DecimalValue, dp: number, rm: RoundingModeNumber): Decimal {
    return divide(this, Decimal.of(y), checkPlaces(dp), checkRounding(rm));
  }

  /** The integer part of the quotient. */
  idiv(y: DecimalValue): Decimal {
    return divide(this, Decimal.of(y), 0, ROUND_DOWN);
  }

  /** The remainder, with the dividend's sign (JavaScript's %). */
  mod(y: DecimalValue): Decimal {
    const b = Decimal.of(y);
    if (this.digits < 0n || b.sign !== b.sign || b.digits === 0n) return NAN;
    if (b.digits < 0n || this.digits === 0n) return this;
    const r = this.minus(divide(this, b, 0, ROUND_DOWN).times(b));
    return r.digits === 0n && r.sign !== this.sign ? new Decimal(RAW, this.sign, 0n, 0) : r;
  }

  /** × 10^k. */
  shiftedBy(k: number): Decimal {
    if (!Number.isInteger(k)) throw new Error(`[Decimal] shift not an integer: ${k}`);
    if (this.digits <= 0n) return this;
    const scale = this.scale - k;
    return scale >= 0
      ? canonical(this.sign, this.digits, scale) // 100 shifted by -2 is 1, not 1.00
      : new Decimal(RAW, this.sign, this.digits * pow10(-scale), 0);
  }

  /** Rounded to `dp` decimal places by `rm` (default ROUND_DOWN). */
  decimalPlaces(dp: number, rm?: RoundingModeNumber): Decimal;
  /** Decimal places of the value (trailing zeros not counted); null for ±Infinity and NaN. */
  decimalPlaces(): number | null;
  decimalPlaces(dp?: number, rm?: RoundingModeNumber): Decimal | number | null {
    if (dp === undefined || dp === null) {
      if (this.digits < 0n) return null;
      return this.scale; // canonical: no trailing zero after the point
    }
    return roundTo(this, checkPlaces(dp), checkRounding(rm));
  }

  integerValue(rm?: RoundingModeNumber): Decimal {
    return roundTo(this, 0, checkRounding(rm));
  }

  // ---- text ----

  /** Plain notation: all digits without `dp`, else exactly dp decimals rounded by `rm`. */
  toFixed(dp?: number, rm?: RoundingModeNumber): string {
    if (this.digits < 0n) return this.toString();
    const minus = this.sign < 0 && this.digits !== 0n ? '-' : '';
    if (dp === undefined || dp === null) {
      return minus + plain(this.digits.toString(), this.scale);
    }
    const r = roundTo(this, checkPlaces(dp), checkRounding(rm));
    let text = r.digits.toString();
    let scale = r.scale;
    if (scale < dp) {
      text += '0'.repeat(dp - scale);
      scale = dp;
    }
    return minus + plain(text, scale);
  }

  toString(): string {
    if (this.digits < 0n) return this.sign !== this.sign ? 'NaN' : this.sign > 0 ? 'Infinity' : '-Infinity';
    return (this.sign < 0 && this.digits !== 0n ? '-' : '') + this.unsigned();
  }

  /** As toString, with the sign of a negative zero (bignumber.js's valueOf and toJSON). */
  valueOf(): string {
    if (this.digits < 0n) return this.toString();
    return (this.sign < 0 ? '-' : '') + this.unsigned();
  }

  toJSON(): string {
    return this.valueOf();
  }

  toNumber(): number {
    return Number(this.valueOf());
  }

  /** The magnitude as toString writes it: exponent notation below 1e-39 and from 1e60. */
  private unsigned(): string {
    if (this.digits === 0n) return '0';
    const text = this.digits.toString();
    const exponent = text.length - 1 - this.scale;
    if (exponent > EXP_NEG && exponent < EXP_POS) return plain(text, this.scale);
    const significant = text.replace(/0+$/, '');
    const mantissa = significant.length > 1 ? `${significant[0]}.${significant.slice(1)}` : significant;
    return `${mantissa}e${exponent < 0 ? '' : '+'}${exponent}`;
  }
}

/** Decimal.of's shared values of -SMALL to SMALL. */
const SMALL = 100;
const SMALL_INTEGERS = Array.from({ length: 2 * SMALL + 1 }, (_, i) => {
  const n = i - SMALL;
  return new Decimal(RAW, n < 0 ? -1 : 1, BigInt(Math.abs(n)), 0);
});

const NAN = new Decimal(RAW, NaN, -1n, 0);
const INFINITY = new Decimal(RAW, 1, -1n, 0);
const NEG_INFINITY = new Decimal(RAW, -1, -1n, 0);

function fromNumber(n: number): [number, bigint, number] {
  if (n !== n) return [NaN, -1n, 0];
  const sign = n < 0 || Object.is(n, -0) ? -1 : 1;
  if (!Number.isFinite(n)) return [sign, -1n, 0];
  if (Number.isSafeInteger(n)) return [sign, BigInt(sign < 0 ? -n : n), 0];
  return fromString(String(n));
}

function fromString(text: string): [number, bigint, number] {
  let t = text;
  let sign = 1;
  if (t.charCodeAt(0) === 45) {
    sign = -1;
    t = t.slice(1);
  }
  let m = NUMERIC.exec(t);
  if (!m) {
    // bignumber.js also takes surrounding spaces and one leading '+'.
    t = text.trim();
    sign = 1;
    if (t.charCodeAt(0) === 43) t = t.slice(1);
    else if (t.charCodeAt(0) === 45) {
      sign = -1;
      t = t.slice(1);
    }
    if (t === 'Infinity') return [sign, -1n, 0];
    if (t === 'NaN') return [NaN, -1n, 0];
    m = NUMERIC.exec(t);
    if (!m) return [NaN, -1n, 0];
  }
  const body = m[1]!;
  const dot = body.indexOf('.');
  const intPart = dot < 0 ? body : body.slice(0, dot);
  const fraction = dot < 0 ? '' : body.slice(dot + 1);
  let digits = BigInt(intPart + fraction || '0');
  if (digits === 0n) return [sign, 0n, 0];
  const exponent = m[2] === undefined ? 0 : Number(m[2]);
  if (Math.abs(exponent) > MAX_EXPONENT) return exponent > 0 ? [sign, -1n, 0] : [sign, 0n, 0];
  let scale = fraction.length - exponent;
  if (scale < 0) {
    digits *= pow10(-scale);
    scale = 0;
  }
  while (scale > 0 && digits % 10n === 0n) {
    digits /= 10n;
    scale--;
  }
  return [sign, digits, scale];
}

function compare(a: Decimal, b: Decimal): number | null {
  if (a.sign !== a.sign || b.sign !== b.sign) return null;
  const aZero = a.digits === 0n;
  const bZero = b.digits === 0n;
  if (aZero || bZero) return aZero ? (bZero ? 0 : -b.sign) : a.sign;
  if (a.sign !== b.sign) return a.sign;
  let m: number;
  if (a.digits < 0n || b.digits < 0n) m = a.digits < 0n ? (b.digits < 0n ? 0 : 1) : -1;
  else if (a.scale === b.scale) m = a.digits === b.digits ? 0 : a.digits > b.digits ? 1 : -1;
  else {
    const x = a.scale < b.scale ? a.digits * pow10(b.scale - a.scale) : a.digits;
    const y = b.scale < a.scale ? b.digits * pow10(a.scale - b.scale) : b.digits;
    m = x === y ? 0 : x > y ? 1 : -1;
  }
  return m === 0 ? 0 : m * a.sign;
}

/** a + direction × b. */
function add(a: Decimal, b: Decimal, direction: 1 | -1): Decimal {
  const bSign = b.sign * direction;
  if (a.sign !== a.sign || bSign !== bSign) return NAN;
  if (a.digits < 0n || b.digits < 0n) {
    if (a.digits >= 0n) return bSign > 0 ? INFINITY : NEG_INFINITY;
    if (b.digits >= 0n || a.sign === bSign) return a;
    return NAN;
  }
  if (b.digits === 0n) {
    if (a.digits !== 0n) return a;
    // 0 + 0: bignumber.js keeps the sign only when both zeros have it.
    return new Decimal(RAW, a.sign === bSign ? a.sign : 1, 0n, 0);
  }
  if (a.digits === 0n) return direction > 0 ? b : new Decimal(RAW, bSign, b.digits, b.scale);
  let x = a.digits;
  let y = b.digits;
  let scale = a.scale;
  if (a.scale < b.scale) {
    x *= pow10(b.scale - a.scale);
    scale = b.scale;
  } else if (b.scale < a.scale) y *= pow10(a.scale - b.scale);
  if (a.sign === bSign) return canonical(a.sign, x + y, scale);
  if (x === y) return new Decimal(RAW, 1, 0n, 0);
  return x > y ? canonical(a.sign, x - y, scale) : canonical(bSign, y - x, scale);
}

function divide(a: Decimal, b: Decimal, dp: number, rm: number): Decimal {
  const sign = a.sign * b.sign;
  if (sign !== sign) return NAN;
  if (a.digits < 0n) return b.digits < 0n ? NAN : sign > 0 ? INFINITY : NEG_INFINITY;
  if (b.digits < 0n) return new Decimal(RAW, sign, 0n, 0);
  if (b.digits === 0n) return a.digits === 0n ? NAN : sign > 0 ? INFINITY : NEG_INFINITY;
  if (a.digits === 0n) return new Decimal(RAW, sign, 0n, 0);
  // a.digits / 10^a.scale ÷ (b.digits / 10^b.scale), to dp places: n / d with n scaled up.
  const shift = dp + b.scale - a.scale;
  const n = shift >= 0 ? a.digits * pow10(shift) : a.digits;
  const d = shift >= 0 ? b.digits : b.digits * pow10(-shift);
  let q = n / d;
  if (roundsUp(q, n - q * d, d, rm, sign < 0)) q += 1n;
  return canonical(sign, q, dp);
}

function roundTo(x: Decimal, dp: number, rm: number): Decimal {
  if (x.digits <= 0n || x.scale <= dp) return x; // zeros, specials and values short enough
  const p = pow10(x.scale - dp);
  let q = x.digits / p;
  if (roundsUp(q, x.digits - q * p, p, rm, x.sign < 0)) q += 1n;
  return canonical(x.sign, q, dp);
}

function maxOrMin(values: DecimalValue[], direction: 1 | -1): Decimal {
  let best = Decimal.of(values[0]!);
  for (let i = 1; i < values.length; i++) {
    const y = Decimal.of(values[i]!);
    if (y.sign !== y.sign) return y;
    const k = compare(best, y);
    // Among equal values bignumber.js prefers a zero of the wanted sign: max(-0, 0) is 0.
    if (k === -direction || (k === 0 && best.sign === -direction)) best = y;
  }
  return best;
}
