import { Money, parseDecimal } from '@perp/domain';
import { FapiError } from '../errors/exceptions';

/** Merged request parameters (query, form or JSON body); a repeated parameter arrives as an array. */
export type RawParams = Record<string, unknown>;

/** A single scalar value; a repeated or structured parameter is malformed (-1102). */
export function scalar(params: RawParams, name: string): string | undefined {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v))
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' sent more than once.`);
  if (typeof v === 'object')
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' was malformed.`);
  return String(v);
}

export function required(params: RawParams, name: string): string {
  const v = scalar(params, name);
  if (v === undefined || v === '')
    throw new FapiError(
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`,
    );
  return v;
}

/** Decimal parameter; unparseable -> -1100. */
export function decimalParam(params: RawParams, name: string): Money | undefined {
  const v = scalar(params, name);
  if (v === undefined || v === '') return undefined;
  const d = parseDecimal(v);
  if (!d)
    throw new FapiError(
      'ILLEGAL_CHARS',
      `Illegal characters found in parameter '${name}'; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'.`,
    );
  return d;
}

const TRUE = new Set(['true', '1']);
const FALSE = new Set(['false', '0', '']);

/** Booleans in every spelling the spec lists: true/false, "true"/"false", 1/0, "1"/"0", empty string. */
export function boolParam(params: RawParams, name: string, fallback = false): boolean {
  const v = scalar(params, name);
  if (v === undefined) return fallback;
  const s = v.toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' must be true or false.`);
}

/** Integer parameter in [min, max]; a value above max is clamped (Binance's convention for limit). */
export function intParam(
  params: RawParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const v = scalar(params, name);
  if (v === undefined || v === '') return fallback;
  if (!/^-?\d{1,16}$/.test(v))
    throw new FapiError('ILLEGAL_CHARS', `Illegal characters found in parameter '${name}'.`);
  const n = Number(v);
  if (n < min)
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' must be at least ${min}.`);
  return Math.min(n, max);
}

/** One of a fixed set of values; anything else gives `code`. */
export function enumParam<T extends string>(
  params: RawParams,
  name: string,
  values: readonly T[],
  code: 'INVALID_DATA_FOR_PARAMETER' | 'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
  fallback?: T,
): T {
  const v = scalar(params, name);
  if (v === undefined || v === '') {
    if (fallback !== undefined) return fallback;
    return required(params, name) as T;
  }
  if (!(values as readonly string[]).includes(v)) throw new FapiError(code, `Invalid ${name}.`);
  return v as T;
}

export { Money };
