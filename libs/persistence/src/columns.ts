import type { ValueTransformer } from 'typeorm';

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** A plain decimal string: optional sign, digits, optional fraction; no exponent, no hex. */
export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

/** Anything with an exact plain-notation rendering, e.g. a Money (`toFixed()`). */
export interface DecimalLike {
  toFixed(): string;
}

/**
 * `numeric` columns as strings: Postgres keeps every digit and `pg` returns numeric as text, so the
 * value round-trips exactly. Writing a JS number throws: money never passes through a float.
 */
export const decimalTransformer: ValueTransformer = {
  to(value: unknown) {
    if (value === null || value === undefined) return value;
    if (isDecimalString(value)) return value;
    if (typeof value === 'object' && typeof (value as DecimalLike).toFixed === 'function') {
      const text = (value as DecimalLike).toFixed();
      if (isDecimalString(text)) return text;
    }
    throw new TypeError(
      `not a decimal string: ${typeof value === 'number' ? `number ${value}` : String(value)}`,
    );
  },
  from(value: unknown) {
    return value;
  },
};

/**
 * `bigint` milliseconds since the epoch as JS numbers (`pg` returns int8 as text; every realistic
 * time is far below 2^53, so the conversion is exact and checked).
 */
export const epochMsTransformer: ValueTransformer = {
  to(value: unknown) {
    if (value === null || value === undefined) return value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    throw new TypeError(`not an integer millisecond time: ${String(value)}`);
  },
  from(value: unknown) {
    if (value === null || value === undefined) return value;
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new TypeError(`bigint time out of range: ${String(value)}`);
    return n;
  },
};

/** Log offsets are int64 in Kafka: kept as decimal strings, compared as BigInt. */
export const offsetTransformer: ValueTransformer = {
  to(value: unknown) {
    if (value === null || value === undefined) return value;
    if (typeof value === 'string' && /^-?\d+$/.test(value)) return value;
    throw new TypeError(`not an integer offset string: ${String(value)}`);
  },
  from(value: unknown) {
    return value;
  },
};
