// The pure part of rate limiting: ceilings, window keys, header names, weights and decisions.
import type { ExchangeInfoRateLimit, RawParams } from '@perp/contracts';
import type { AppConfig } from '@perp/runtime';

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60_000;

/** The ceilings, from the app configuration (README: RATE_LIMIT_*). */
export interface RateLimitCeilings {
  /** Request weight per client IP per minute, every FAPI route. */
  weightPerMinute: number;
  /** Orders per account per 10 s, endpoints that declare an order count. */
  ordersPer10s: number;
  /** Orders per account per minute. */
  ordersPerMinute: number;
  /** Native nonce and login requests per client IP per minute (together). */
  loginPerMinute: number;
}

/** Binance USD-M's published ceilings (and the configuration's defaults). */
export const BINANCE_CEILINGS: RateLimitCeilings = {
  weightPerMinute: 2400,
  ordersPer10s: 300,
  ordersPerMinute: 1200,
  loginPerMinute: 60,
};

type RateLimitEnv = Pick<
  AppConfig,
  | 'RATE_LIMIT_WEIGHT_PER_MIN'
  | 'RATE_LIMIT_ORDERS_PER_10S'
  | 'RATE_LIMIT_ORDERS_PER_MIN'
  | 'RATE_LIMIT_LOGIN_PER_MIN'
>;

export function ceilingsOf(config: RateLimitEnv): RateLimitCeilings {
  return {
    weightPerMinute: config.RATE_LIMIT_WEIGHT_PER_MIN,
    ordersPer10s: config.RATE_LIMIT_ORDERS_PER_10S,
    ordersPerMinute: config.RATE_LIMIT_ORDERS_PER_MIN,
    loginPerMinute: config.RATE_LIMIT_LOGIN_PER_MIN,
  };
}

/** The `rateLimits` array of exchangeInfo for these ceilings (Binance's shape). */
export function exchangeInfoRateLimits(c: RateLimitCeilings): ExchangeInfoRateLimit[] {
  return [
    { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: c.weightPerMinute },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: c.ordersPerMinute },
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: c.ordersPer10s },
  ];
}

const UNITS: [number, string, string][] = [
  [24 * 60 * MINUTE_MS, 'D', 'DAY'],
  [60 * MINUTE_MS, 'H', 'HOUR'],
  [MINUTE_MS, 'M', 'MINUTE'],
  [SECOND_MS, 'S', 'SECOND'],
];

function unitOf(windowMs: number): [number, string, string] {
  if (!Number.isSafeInteger(windowMs) || windowMs < SECOND_MS || windowMs % SECOND_MS !== 0)
    throw new RangeError(`a rate-limit window is a whole number of seconds: ${windowMs}`);
  return UNITS.find(([ms]) => windowMs % ms === 0)!;
}

/** Binance's interval suffix (intervalNum + intervalLetter): 60 000 ms is `1M`, 10 000 ms `10S`. */
export function intervalSuffix(windowMs: number): string {
  const [ms, letter] = unitOf(windowMs);
  return `${windowMs / ms}${letter}`;
}

/** The interval in words, for messages: `1 MINUTE`, `10 SECOND`. */
export function intervalWords(windowMs: number): string {
  const [ms, , word] = unitOf(windowMs);
  return `${windowMs / ms} ${word}`;
}

export type LimitKind = 'weight' | 'orders' | 'login';

/**
 * Hot-store key of one counter: `rate-limit:<kind>:<interval>:<subject>`, e.g.
 * `rate-limit:weight:1m:ip:10.0.0.1` or `rate-limit:orders:10s:user:<uuid>`. The window length is
 * part of the key, so changing a ceiling's window never reads a counter of another length.
 */
export function windowKey(kind: LimitKind, windowMs: number, subject: string): string {
  return `rate-limit:${kind}:${intervalSuffix(windowMs).toLowerCase()}:${subject}`;
}

/** One fixed-window counter to check: where it lives, how long it runs, its ceiling, its header. */
export interface LimitWindow {
  key: string;
  windowMs: number;
  limit: number;
  /** Response header carrying the window's count (none for the native login limit). */
  header?: string;
}

/** The header that echoes the request weight (kept for clients that read the unsuffixed name). */
export const LEGACY_WEIGHT_HEADER = 'X-MBX-USED-WEIGHT';

export function weightWindows(c: RateLimitCeilings, ip: string): LimitWindow[] {
  return [
    {
      key: windowKey('weight', MINUTE_MS, `ip:${ip}`),
      windowMs: MINUTE_MS,
      limit: c.weightPerMinute,
      header: `X-MBX-USED-WEIGHT-${intervalSuffix(MINUTE_MS)}`,
    },
  ];
}

export function orderWindows(c: RateLimitCeilings, userId: string): LimitWindow[] {
  const windows: [number, number][] = [
    [10 * SECOND_MS, c.ordersPer10s],
    [MINUTE_MS, c.ordersPerMinute],
  ];
  return windows.map(([windowMs, limit]) => ({
    key: windowKey('orders', windowMs, `user:${userId}`),
    windowMs,
    limit,
    header: `X-MBX-ORDER-COUNT-${intervalSuffix(windowMs)}`,
  }));
}

export function loginWindows(c: RateLimitCeilings, ip: string): LimitWindow[] {
  return [{ key: windowKey('login', MINUTE_MS, `ip:${ip}`), windowMs: MINUTE_MS, limit: c.loginPerMinute }];
}

/** A window's count and the time to its end, as HotStore.incrWindow answers. */
export interface WindowState {
  count: number;
  resetInMs: number;
}

/** Indexes of the windows that `amount` more would take past their ceiling. */
export function exceeded(windows: readonly LimitWindow[], states: readonly WindowState[], amount: number) {
  return windows.flatMap((w, i) => (states[i]!.count + amount > w.limit ? [i] : []));
}

/** Retry-After (whole seconds, at least 1) of a refusal: when every refusing window has ended. */
export function retryAfterSeconds(states: readonly WindowState[], refused: readonly number[]): number {
  const ms = Math.max(0, ...refused.map((i) => states[i]!.resetInMs));
  return Math.max(1, Math.ceil(ms / SECOND_MS));
}

/** Response headers for the windows' counts. */
export function countHeaders(
  windows: readonly LimitWindow[],
  states: readonly WindowState[],
): Record<string, string> {
  const out: Record<string, string> = {};
  windows.forEach((w, i) => {
    if (w.header) out[w.header] = String(states[i]!.count);
  });
  return out;
}

/** A weight or an order count: fixed, or computed from the request's FAPI parameters. */
export type CountRule = number | ((params: RawParams) => number);

/**
 * The amount `rule` gives for these parameters. Parameters the rule cannot read (a repeated or
 * malformed one: the handler answers -1102 itself) give `fallback`; so does a result that is not
 * a non-negative integer.
 */
export function amountOf(rule: CountRule, params: () => RawParams, fallback: number): number {
  let n: number;
  try {
    n = typeof rule === 'number' ? rule : rule(params());
  } catch {
    return fallback;
  }
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

const present = (params: RawParams, name: string) => params[name] !== undefined && params[name] !== null;

/** Weight by the presence of `symbol`: one market is cheap, every market is not (ticker/24hr 1 / 40). */
export function bySymbol(withSymbol: number, withoutSymbol: number): (params: RawParams) => number {
  return (params) => (present(params, 'symbol') ? withSymbol : withoutSymbol);
}

/** Binance's klines weight by `limit` (default 500): [1,100) 1, [100,500) 2, [500,1000] 5, above 10. */
export function klinesWeight(params: RawParams): number {
  const raw = params.limit;
  const limit = raw === undefined || raw === null || raw === '' ? 500 : Number(raw);
  if (!Number.isFinite(limit)) return 5;
  if (limit < 100) return 1;
  if (limit < 500) return 2;
  if (limit <= 1000) return 5;
  return 10;
}

/** Binance's depth weight by `limit` (default 500): 5 to 50 2, 100 5, 500 10, 1000 20. */
export function depthWeight(params: RawParams): number {
  const raw = params.limit;
  const limit = raw === undefined || raw === null || raw === '' ? 500 : Number(raw);
  if (!Number.isFinite(limit) || limit > 500) return 20;
  if (limit <= 50) return 2;
  return limit <= 100 ? 5 : 10;
}

/**
 * Orders in a batchOrders request: the entries of its `batchOrders` JSON array. Missing or not a
 * JSON array: 0 (the handler answers -1102 and places nothing).
 */
export function batchOrderCount(params: RawParams): number {
  const raw = params.batchOrders;
  if (Array.isArray(raw)) return raw.length; // already parsed (a JSON body)
  if (typeof raw !== 'string') return 0;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.length : 0;
  } catch {
    return 0;
  }
}

/**
 * The spec's weights of the public FAPI endpoints (Type NONE), by route. Signed endpoints declare
 * theirs with `@Signed({ weight })`; a public handler may declare one with `@Weight()`, which
 * wins over this table. A route in neither weighs 1.
 */
export const PUBLIC_WEIGHTS: Readonly<Record<string, CountRule>> = {
  '/fapi/v1/ping': 1,
  '/fapi/v1/time': 1,
  '/fapi/v1/exchangeInfo': 1,
  '/fapi/v1/ticker/24hr': bySymbol(1, 40),
  '/fapi/v1/ticker/bookTicker': bySymbol(1, 2),
  '/fapi/v1/premiumIndex': bySymbol(1, 10),
  '/fapi/v1/openInterest': 1,
  '/fapi/v1/fundingRate': 1,
  // Binance: weight 0, sharing fundingRate's own 500 / 5 min limit; here it weighs as fundingRate.
  '/fapi/v1/fundingInfo': 1,
  '/fapi/v1/klines': klinesWeight,
  // Not in the spec's table: Binance's weights.
  '/fapi/v1/depth': depthWeight,
  '/fapi/v1/trades': 5,
  '/fapi/v1/historicalTrades': 20,
  '/fapi/v1/aggTrades': 20,
  '/fapi/v1/continuousKlines': klinesWeight,
  '/fapi/v1/indexPriceKlines': klinesWeight,
  '/fapi/v1/markPriceKlines': klinesWeight,
  '/fapi/v1/premiumIndexKlines': klinesWeight,
  '/fapi/v1/ticker/price': bySymbol(1, 2),
  '/fapi/v2/ticker/price': bySymbol(1, 2),
  // The spec: "futures data endpoints 1".
  '/futures/data/topLongShortAccountRatio': 1,
  '/futures/data/topLongShortPositionRatio': 1,
  '/futures/data/globalLongShortAccountRatio': 1,
  '/futures/data/openInterestHist': 1,
  '/futures/data/takerlongshortRatio': 1,
};

export const DEFAULT_WEIGHT = 1;

/** Whether a path is on the FAPI surface (as the error filter decides it). */
export function isFapiPath(path: string): boolean {
  return path.startsWith('/fapi/') || path.startsWith('/futures/');
}

/** The path of a URL, without query string or trailing slash. */
export function pathOf(url: string): string {
  const path = url.split('?', 1)[0]!;
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
