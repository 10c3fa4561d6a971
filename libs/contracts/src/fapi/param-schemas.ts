import { MAX_DECIMAL_TEXT, Money, parseDecimal } from '@perp/domain';
import { z } from 'zod';
import { FapiError } from '../errors/exceptions';
import type { FapiErrorName } from '../errors/fapi-errors';
import { type RawParams, scalar } from './params';

/**
 * FAPI parameters as zod schemas over the wire text. One schema both parses a parameter (through
 * `FapiFields`) and documents it (`z.toJSONSchema(..., { io: 'input' })` in the gateway's OpenAPI
 * builder), so the reference cannot drift from the parser. A failing check carries the FAPI error
 * it answers with (`fapiIssue`); `{name}` in its text is the parameter's name.
 */
export type FapiParamShape = Record<string, z.ZodType>;

const SEP = '\u001f';

/** The message of a failing check: the FAPI error and its text, read back by `FapiFields`. */
export function fapiIssue(error: FapiErrorName, msg: string): string {
  return error + SEP + msg;
}

function fapiErrorOf(issue: z.core.$ZodIssue | undefined, name: string): FapiError {
  const [error, msg] = (issue?.message ?? '').split(SEP);
  if (msg === undefined)
    return new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' was malformed.`);
  return new FapiError(error as FapiErrorName, msg.replaceAll('{name}', name));
}

const KEEP_EMPTY = new WeakSet<z.ZodType>();

/** A parameter whose empty value is a value (an empty `symbol` names no market: -1121), not "not sent". */
export function keepEmpty<T extends z.ZodType>(schema: T): T {
  KEEP_EMPTY.add(schema);
  return schema;
}

export const mandatoryMessage = (name: string) =>
  `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`;

/**
 * Successful parses per schema by wire text: a bot sends the same symbol, side, type, quantity and
 * prices again and again, and a zod chain of checks and transforms costs microseconds per value.
 * Only values no caller can change (primitives, Money) are kept; bounded, emptied when full.
 */
const PARSED = new WeakMap<z.ZodType, Map<string, unknown>>();
const PARSED_PER_SCHEMA = 256;

function isImmutable(value: unknown): boolean {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || value instanceof Money;
}

/**
 * Reads one parameter by its schema: sent twice or structured -1102 (`scalar`); absent or empty
 * (an optional parameter sent empty counts as not sent) gives the schema's default, or -1102 when
 * it has none; otherwise the schema's own checks and their FAPI errors.
 */
export function readFapiParam<T extends z.ZodType>(schema: T, params: RawParams, name: string): z.output<T> {
  const v = scalar(params, name);
  const absent = v === undefined || (v === '' && !KEEP_EMPTY.has(schema));
  let memo: Map<string, unknown> | undefined;
  if (!absent) {
    memo = PARSED.get(schema);
    const hit = memo?.get(v);
    if (hit !== undefined) return hit as z.output<T>;
  }
  const r = schema.safeParse(absent ? undefined : v);
  if (r.success) {
    if (!absent && isImmutable(r.data)) {
      if (!memo) PARSED.set(schema, (memo = new Map()));
      if (memo.size >= PARSED_PER_SCHEMA) memo.clear();
      memo.set(v, r.data);
    }
    return r.data;
  }
  if (absent) throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', mandatoryMessage(name));
  throw fapiErrorOf(r.error.issues[0], name);
}

/** A route's parameters, read one at a time in the order the handler checks them. */
export class FapiFields<S extends FapiParamShape> {
  constructor(
    readonly shape: S,
    readonly raw: RawParams,
  ) {}

  get<K extends keyof S & string>(name: K): z.output<S[K]> {
    const schema = this.shape[name];
    if (!schema) throw new Error(`parameter ${name} is not in the route's schema`);
    return readFapiParam(schema, this.raw, name);
  }

  /** Every parameter, in the schema's order. */
  all(): { [K in keyof S]: z.output<S[K]> } {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(this.shape)) out[name] = this.get(name);
    return out as { [K in keyof S]: z.output<S[K]> };
  }
}

// ---- parameter kinds --------------------------------------------------------------------------

const DECIMAL_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/;
const INTEGER_TEXT = /^-?\d{1,16}$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BOOL_TEXT = /^(true|false|1|0|)$/i;
/** A client order id (`newClientOrderId`, `origClientOrderId`). */
export const CLIENT_ORDER_ID = /^[A-Za-z0-9_.-]{1,36}$/;

const illegal = (extra = '') =>
  fapiIssue('ILLEGAL_CHARS', `Illegal characters found in parameter '{name}'${extra}.`);

/** Symbol (any alias: BTCUSDT, BTC-USD, btc_usdt); the handler looks it up (-1121 when unknown). */
const symbol = (description = 'Symbol, any alias (BTCUSDT, BTC-USD, btc_usdt)') =>
  z.string().meta({ description, examples: ['BTCUSDT'] });

/** A decimal (unparseable -1100, and so is one longer than parseDecimal reads) as Money. */
const decimal = (description: string) =>
  z
    .string()
    .max(MAX_DECIMAL_TEXT, illegal("; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'"))
    .regex(DECIMAL_TEXT, illegal("; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'"))
    .transform((v) => parseDecimal(v) as Money)
    .meta({ description, examples: ['0.01'] });

/** An integer: not one -1100; below `min` -1102; above `max` clamped (Binance's convention for limit). */
const int = (description: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(INTEGER_TEXT, illegal())
    .transform(Number)
    .refine(
      (n) => n >= min,
      fapiIssue('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '{name}' must be at least ${min}.`),
    )
    .transform((n) => Math.min(n, max))
    .meta({ description });

/** A time in ms since the epoch. */
const time = (description: string) => int(`${description} (ms since the epoch)`, 0);

/** `limit`: default `fallback`, at least 1, above `max` clamped. */
const limit = (fallback: number, max: number) =>
  int(`Rows, 1 to ${max} (default ${fallback}; above ${max}: ${max})`, 1, max)
    .optional()
    .transform((n) => n ?? fallback);

/** One of fixed values; anything else answers `error` with "Invalid {name}." (or `msg`). */
const oneOf = <const T extends readonly [string, ...string[]]>(
  values: T,
  error:
    | 'INVALID_DATA_FOR_PARAMETER'
    | 'MANDATORY_PARAM_EMPTY_OR_MALFORMED'
    | 'INVALID_INTERVAL'
    | 'ILLEGAL_CHARS',
  description: string,
  msg = 'Invalid {name}.',
) => z.enum(values, { error: fapiIssue(error, msg) }).meta({ description });

/** true/false in every spelling the spec lists (true, "TRUE", 1, "0", empty = false); else -1102. */
const bool = (description: string) =>
  z
    .string()
    .regex(
      BOOL_TEXT,
      fapiIssue('MANDATORY_PARAM_EMPTY_OR_MALFORMED', "Parameter '{name}' must be true or false."),
    )
    .transform((v) => v === '1' || v.toLowerCase() === 'true')
    .meta({ description });

/** An order or trade id: a UUID (else -1100), lowercased. */
const uuid = (description: string) =>
  z
    .string()
    .regex(UUID, illegal())
    .transform((v) => v.toLowerCase())
    .meta({ description, format: 'uuid' });

/** A client order id: `[A-Za-z0-9_.-]{1,36}`, else -1100. */
const clientOrderId = (description: string, legalRange = false) =>
  z
    .string()
    .regex(CLIENT_ORDER_ID, illegal(legalRange ? "; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'" : ''))
    .meta({ description });

/** Free text as sent. */
const text = (description: string) => z.string().meta({ description });

/** The parameter kinds FAPI routes are declared with. */
export const fapiParam = {
  symbol,
  decimal,
  int,
  time,
  limit,
  oneOf,
  bool,
  uuid,
  clientOrderId,
  text,
  keepEmpty,
};
