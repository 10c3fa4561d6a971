import { FAPI_AUTH_ERRORS, fapiAuthErrorBody } from './auth-errors';
import { FapiAuthError, FapiError, NativeError } from './exceptions';
import { FAPI_ERRORS } from './fapi-errors';
import { NATIVE_ERRORS } from './native-errors';

/** The spec's "FAPI business errors" table, transcribed: code, HTTP status, name. */
const SPEC_FAPI_ROWS: [number, number, string][] = [
  [-1000, 500, 'UNKNOWN'],
  [-1001, 500, 'DISCONNECTED'],
  [-1003, 429, 'TOO_MANY_REQUESTS'],
  [-1013, 400, 'INVALID_QUANTITY'],
  [-1021, 400, 'INVALID_TIMESTAMP'],
  [-1100, 400, 'ILLEGAL_CHARS'],
  [-1102, 400, 'MANDATORY_PARAM_EMPTY_OR_MALFORMED'],
  [-1106, 400, 'PARAMETER_NOT_REQUIRED'],
  [-1120, 400, 'INVALID_INTERVAL'],
  [-1121, 400, 'INVALID_SYMBOL'],
  [-1125, 404, 'INVALID_LISTEN_KEY'],
  [-1130, 400, 'INVALID_DATA_FOR_PARAMETER'],
  [-2010, 400, 'NEW_ORDER_REJECTED'],
  [-2011, 400, 'UNKNOWN_ORDER'],
  [-2013, 404, 'NO_SUCH_ORDER'],
  [-2014, 400, 'API_KEY_FORMAT'],
  [-2019, 400, 'MARGIN_INSUFFICIENT'],
  [-2021, 400, 'ORDER_WOULD_TRIGGER_IMMEDIATELY'],
  [-2022, 400, 'REDUCEONLY_REJECT'],
  [-4028, 400, 'INVALID_LEVERAGE'],
  [-4046, 400, 'NO_NEED_TO_CHANGE_MARGIN_TYPE'],
  [-4059, 400, 'NO_NEED_TO_CHANGE_POSITION_SIDE'],
];

/**
 * Binance's codes beyond the spec's table: -1007, the outcome a timed-out command leaves unknown;
 * -2025, the symbol's maximum of open orders (MAX_NUM_ORDERS) reached.
 */
const BINANCE_FAPI_ROWS: [number, number, string][] = [
  [-1007, 503, 'TIMEOUT'],
  [-2025, 400, 'MAX_OPEN_ORDER_EXCEEDED'],
];

/** The spec's "FAPI authentication errors" table. */
const SPEC_AUTH_ROWS: [string, number][] = [
  ['INVALID_API_KEY', 401],
  ['API_KEY_DISABLED', 401],
  ['IP_NOT_ALLOWED', 403],
  ['SIGNATURE_INVALID', 401],
];

/** Codes named in the spec's "Native API errors" table. */
const SPEC_NATIVE_CODES =
  'INVALID_ADDRESS TIMESTAMP_EXPIRED USER_NOT_FOUND SIGNATURE_INVALID SIGNATURE_FORMAT_INVALID INVALID_TOKEN LIMIT_REACHED INVALID_IP INVALID_SYMBOL INVALID_LEVERAGE INVALID_AMOUNT PRICE_REQUIRED SLIPPAGE_EXCEEDED INSUFFICIENT_BALANCE OI_CAP_EXCEEDED ORDER_NOT_FOUND ORDER_NOT_OWNED ORDER_NOT_CANCELLABLE HAS_OPEN_ORDERS HAS_OPEN_POSITIONS INVALID_MARGIN_MODE INVALID_MARKET ERR_INVALID_PERIOD ERR_NO_DATA CIRCUIT_OPEN PRICE_DATA_UNAVAILABLE'.split(
    ' ',
  );

describe('FAPI error table', () => {
  // Every row of the spec's "FAPI business errors" table: | -1000 | 500 | UNKNOWN | ...
  const rows = [...SPEC_FAPI_ROWS, ...BINANCE_FAPI_ROWS].map(([code, http, name]) => ({ code, http, name }));

  it("covers exactly the spec table and Binance's -1007 and -2025", () => {
    expect(Object.keys(FAPI_ERRORS).sort()).toEqual(rows.map((r) => r.name).sort());
  });

  it.each(rows)('$code $name answers HTTP $http', ({ code, http, name }) => {
    expect(FAPI_ERRORS[name as keyof typeof FAPI_ERRORS]).toEqual({ code, http });
  });

  it('FapiError carries code and status', () => {
    const e = new FapiError('INVALID_SYMBOL', 'Invalid symbol.');
    expect([e.code, e.status, e.message]).toEqual([-1121, 400, 'Invalid symbol.']);
  });
});

describe('auth envelope', () => {
  it.each(SPEC_AUTH_ROWS)('%s answers %d', (code, status) => {
    expect(FAPI_AUTH_ERRORS[code as keyof typeof FAPI_AUTH_ERRORS]).toBe(status);
    expect(new FapiAuthError(code as keyof typeof FAPI_AUTH_ERRORS, 'x').status).toBe(status);
  });

  it('has the spec shape with the timestamp in seconds', () => {
    expect(fapiAuthErrorBody('SIGNATURE_INVALID', 'bad', 1_700_000_000_999)).toEqual({
      success: false,
      data: null,
      error: { code: 'SIGNATURE_INVALID', message: 'bad' },
      timestamp: 1_700_000_000,
    });
  });
});

describe('native errors', () => {
  it('every code of the spec native table is known', () => {
    const known = new Set(Object.keys(NATIVE_ERRORS));
    for (const c of SPEC_NATIVE_CODES) expect(known.has(c)).toBe(true);
  });

  it('EXECUTION_STATUS_UNKNOWN (a sent command without an answer) is a 503', () => {
    expect(new NativeError('EXECUTION_STATUS_UNKNOWN', 'x').status).toBe(503);
  });

  it('INVALID_MARKET is a 404; the wrapped envelope is available', () => {
    expect(new NativeError('INVALID_MARKET', 'x').status).toBe(404);
    expect(new NativeError('ORDER_NOT_FOUND', 'x', 'wrapped').envelope).toBe('wrapped');
  });
});

describe('errors that answer the client', () => {
  it('capture no stack (they are answers, not faults), and leave the stack limit as it was', () => {
    const limit = Error.stackTraceLimit;
    for (const e of [
      new FapiError('TOO_MANY_REQUESTS', 'slow down'),
      new FapiAuthError('SIGNATURE_INVALID', 'bad key'),
      new NativeError('INVALID_MARKET', 'no such market'),
    ]) {
      expect(e).toBeInstanceOf(Error);
      expect(e.stack).not.toMatch(/\n\s+at /);
      expect(e.stack).toContain(e.message);
    }
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });
});
