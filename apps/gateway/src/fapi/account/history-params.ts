import { FapiError, intParam, type RawParams, scalar } from '@perp/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A time in ms: absent or empty = undefined; not an integer -1100; negative -1102. */
export function timeParam(params: RawParams, name: string): number | undefined {
  const v = scalar(params, name);
  if (v === undefined || v === '') return undefined;
  return intParam(params, name, 0, 0, Number.MAX_SAFE_INTEGER);
}

/** `limit`: default `fallback`, at least 1 (-1102), above `max` clamped (Binance's convention). */
export function limitParam(params: RawParams, fallback: number, max: number): number {
  return intParam(params, 'limit', fallback, 1, max);
}

/** An order or trade id: a UUID, lowercased; anything else is -1100 (spec: unparseable UUID). */
export function uuidParam(params: RawParams, name: string): string | undefined {
  const v = scalar(params, name);
  if (v === undefined || v === '') return undefined;
  if (!UUID.test(v)) throw new FapiError('ILLEGAL_CHARS', `Illegal characters found in parameter '${name}'.`);
  return v.toLowerCase();
}

/** A client order id as sent (any string; an unknown one is simply not found). */
export function clientIdParam(params: RawParams, name: string): string | undefined {
  const v = scalar(params, name);
  return v === undefined || v === '' ? undefined : v;
}
