import { DEFAULT_JWT_TTL_SECONDS, SIGNATURE_WINDOW_MS } from '@perp/auth';
import {
  FAPI_AUTH_ERRORS,
  FAPI_ERRORS,
  type FapiAuthErrorCode,
  type FapiErrorName,
  NATIVE_ERRORS,
  type NativeErrorCode,
} from '@perp/contracts';
import { MAX_API_KEYS_PER_USER } from '@perp/persistence';
import { loadAppConfig } from '@perp/runtime';
import { MAX_BATCH_CANCELS, MAX_BATCH_ORDERS } from '../fapi/orders/order-params';
import type { OpenApiDocument } from './build-openapi';

// The tables of docs/api-overview.md that come from code (error tables, limits, weights): the
// OpenAPI test regenerates them (UPDATE_OPENAPI=1) and fails when the file differs.

/** What each FAPI business error means (total: a new code needs a line here). */
const FAPI_MEANING: Record<FapiErrorName, string> = {
  UNKNOWN: 'unexpected failure',
  DISCONNECTED: 'a service could not be reached or is behind: nothing was done, try again',
  TOO_MANY_REQUESTS: 'request weight or order count above its ceiling (`Retry-After`)',
  TIMEOUT: 'sent, but the result did not come back in time: look the order up before resending',
  INVALID_QUANTITY: 'filter failure: lot, tick, min/max notional, max quantity, or a non-positive amount',
  INVALID_TIMESTAMP: '`timestamp` more than 60 s from the server time',
  ILLEGAL_CHARS: 'a parameter that does not parse (number, id, limit)',
  MANDATORY_PARAM_EMPTY_OR_MALFORMED: 'a required parameter missing, empty, repeated or malformed',
  PARAMETER_NOT_REQUIRED: 'a parameter that excludes another (quantity and quoteOrderQty)',
  INVALID_INTERVAL: 'unknown kline interval or statistics period',
  INVALID_SYMBOL: 'no such market (after alias normalization)',
  INVALID_LISTEN_KEY: 'no active listenKey, or another one',
  INVALID_DATA_FOR_PARAMETER: 'a value outside the accepted set',
  NEW_ORDER_REJECTED:
    'the order was refused (market status, max price, trigger limits, post-only would take)',
  UNKNOWN_ORDER: 'no open order to cancel or modify',
  NO_SUCH_ORDER: 'no such order',
  API_KEY_FORMAT: 'client order id already used by an active order',
  MARGIN_INSUFFICIENT: 'not enough available margin',
  MAX_OPEN_ORDER_EXCEEDED: 'the symbol’s maximum of open orders (MAX_NUM_ORDERS) is reached',
  ORDER_WOULD_TRIGGER_IMMEDIATELY: 'a trigger order whose stop price is already reached',
  REDUCEONLY_REJECT: 'a reduce-only order that would increase the position',
  INVALID_LEVERAGE: 'leverage outside 1 to the market maximum',
  NO_NEED_TO_CHANGE_MARGIN_TYPE: 'isolated margin asked on FAPI (cross only)',
  NO_NEED_TO_CHANGE_POSITION_SIDE: 'hedge mode asked (one-way only)',
};

const FAPI_AUTH_MEANING: Record<FapiAuthErrorCode, string> = {
  INVALID_API_KEY: 'missing, unknown or malformed `X-MBX-APIKEY` (or a key of another deployment)',
  API_KEY_DISABLED: 'the key is disabled',
  IP_NOT_ALLOWED: 'the client IP is not in the key’s whitelist',
  SIGNATURE_INVALID: 'HMAC mismatch, or a missing or malformed `timestamp` or `signature`',
};

const NATIVE_MEANING: Record<NativeErrorCode, string> = {
  INVALID_ADDRESS: 'malformed wallet address',
  TIMESTAMP_EXPIRED: 'login timestamp more than 5 minutes away',
  USER_NOT_FOUND: 'no pending nonce: call the nonce endpoint first',
  SIGNATURE_INVALID: 'the login signature does not match the address',
  SIGNATURE_FORMAT_INVALID: 'signature not 0x-prefixed hex',
  INVALID_TOKEN: 'missing, expired or invalid JWT (or admin token)',
  LIMIT_REACHED: `already ${MAX_API_KEYS_PER_USER} API keys`,
  INVALID_IP: 'malformed `ip_whitelist`',
  INVALID_SYMBOL: 'unknown or non-trading market in an order',
  INVALID_LEVERAGE: 'leverage outside 1 to the market maximum',
  INVALID_AMOUNT: 'a quantity or amount that is not a positive decimal',
  PRICE_REQUIRED: 'limit order without a price',
  SLIPPAGE_EXCEEDED: 'the expected fill moves further from the mark than `max_slippage`',
  INSUFFICIENT_BALANCE: 'available balance too low',
  OI_CAP_EXCEEDED: 'the order would raise open interest above the market’s cap',
  ORDER_NOT_FOUND: 'no such order',
  ORDER_NOT_OWNED: 'the order belongs to another account',
  ORDER_NOT_CANCELLABLE: 'the order is already done',
  HAS_OPEN_ORDERS: 'margin-mode switch with open orders',
  HAS_OPEN_POSITIONS: 'margin-mode switch with open positions',
  INVALID_MARGIN_MODE: 'unknown margin mode, or an action the mode does not allow',
  INVALID_MARKET: 'no such market',
  ERR_INVALID_PERIOD: 'unknown statistics period',
  ERR_NO_DATA: 'no data for the request',
  CIRCUIT_OPEN: 'the index sources are paused by their circuit breakers',
  PRICE_DATA_UNAVAILABLE: 'no mark price yet, or no fresh index source (the sources are stale or disagree)',
  MARKET_EXISTS: 'admin: the market exists already',
  MARKET_DELISTED: 'admin: the market is delisted (final)',
  SERVICE_UNAVAILABLE: 'a service did not answer in time (order and account commands: not sent)',
  EXECUTION_STATUS_UNKNOWN: 'sent, but the result did not come back in time: look the order up',
  RATE_LIMITED: 'too many login or nonce requests from this IP (`Retry-After`)',
  INVALID_REQUEST: 'a body or parameter that fails validation',
  NOT_FOUND: 'no such resource (route, API key, position)',
  INTERNAL_ERROR: 'unexpected failure',
};

const table = (head: string[], rows: (string | number)[][]) =>
  [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');

function limitsTable(): string {
  const c = loadAppConfig({});
  return table(
    ['Limit', 'Value', 'Set by'],
    [
      ['Request weight per client IP per minute', c.RATE_LIMIT_WEIGHT_PER_MIN, '`RATE_LIMIT_WEIGHT_PER_MIN`'],
      ['Orders per account per 10 s', c.RATE_LIMIT_ORDERS_PER_10S, '`RATE_LIMIT_ORDERS_PER_10S`'],
      ['Orders per account per minute', c.RATE_LIMIT_ORDERS_PER_MIN, '`RATE_LIMIT_ORDERS_PER_MIN`'],
      [
        'Nonce and login requests per client IP per minute',
        c.RATE_LIMIT_LOGIN_PER_MIN,
        '`RATE_LIMIT_LOGIN_PER_MIN`',
      ],
      ['JWT lifetime (s)', DEFAULT_JWT_TTL_SECONDS, '`JWT_TTL_SECONDS`'],
      ['Signed request timestamp window (ms, either way)', SIGNATURE_WINDOW_MS, 'fixed'],
      ['API keys per account per deployment', MAX_API_KEYS_PER_USER, 'fixed'],
      ['Orders per `batchOrders` request', MAX_BATCH_ORDERS, 'fixed'],
      ['Ids per batch cancel', MAX_BATCH_CANCELS, 'fixed'],
    ],
  );
}

function weightsTable(fapi: OpenApiDocument): string {
  const rows = Object.entries(fapi.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [
      `\`${method.toUpperCase()} ${path}\``,
      String(op['x-weight']),
      String(op['x-security-type'] ?? ((op.security as unknown[] | undefined) ? 'USER_STREAM' : 'NONE')),
    ]),
  );
  return table(['Route', 'Weight', 'Type'], rows);
}

/** The generated blocks of docs/api-overview.md, by marker name. */
export function overviewTables(fapi: OpenApiDocument): Record<string, string> {
  const fapiRows = (Object.keys(FAPI_ERRORS) as FapiErrorName[]).map((n) => [
    FAPI_ERRORS[n].code,
    `\`${n}\``,
    FAPI_ERRORS[n].http,
    FAPI_MEANING[n],
  ]);
  const authRows = (Object.keys(FAPI_AUTH_ERRORS) as FapiAuthErrorCode[]).map((n) => [
    `\`${n}\``,
    FAPI_AUTH_ERRORS[n],
    FAPI_AUTH_MEANING[n],
  ]);
  const nativeRows = (Object.keys(NATIVE_ERRORS) as NativeErrorCode[]).map((n) => [
    `\`${n}\``,
    NATIVE_ERRORS[n],
    NATIVE_MEANING[n],
  ]);
  return {
    'fapi-errors': table(['Code', 'Name', 'HTTP', 'Meaning'], fapiRows),
    'fapi-auth-errors': table(['code', 'HTTP', 'Meaning'], authRows),
    'native-errors': table(['code', 'HTTP', 'Meaning'], nativeRows),
    limits: limitsTable(),
    weights: weightsTable(fapi),
  };
}

/** The file with each `<!-- generated:NAME -->` … `<!-- /generated -->` block replaced. */
export function fillGenerated(markdown: string, blocks: Record<string, string>): string {
  return markdown.replace(
    /(<!-- generated:([a-z-]+) -->)[\s\S]*?(<!-- \/generated -->)/g,
    (_, open: string, name: string, close: string) => {
      const block = blocks[name];
      if (block === undefined) throw new Error(`unknown generated block ${name}`);
      return `${open}\n\n${block}\n\n${close}`;
    },
  );
}
