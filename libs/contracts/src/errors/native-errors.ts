/** Native API error codes and the HTTP status each one answers with. */
export const NATIVE_ERRORS = {
  INVALID_ADDRESS: 400,
  TIMESTAMP_EXPIRED: 400,
  USER_NOT_FOUND: 404,
  SIGNATURE_INVALID: 401,
  SIGNATURE_FORMAT_INVALID: 400,
  INVALID_TOKEN: 401,
  LIMIT_REACHED: 400,
  INVALID_IP: 400,
  INVALID_SYMBOL: 400,
  INVALID_LEVERAGE: 400,
  INVALID_AMOUNT: 400,
  PRICE_REQUIRED: 400,
  SLIPPAGE_EXCEEDED: 400,
  INSUFFICIENT_BALANCE: 400,
  OI_CAP_EXCEEDED: 400,
  ORDER_NOT_FOUND: 404,
  ORDER_NOT_OWNED: 403,
  ORDER_NOT_CANCELLABLE: 400,
  HAS_OPEN_ORDERS: 400,
  HAS_OPEN_POSITIONS: 400,
  INVALID_MARGIN_MODE: 400,
  INVALID_MARKET: 404,
  ERR_INVALID_PERIOD: 400,
  ERR_NO_DATA: 404,
  CIRCUIT_OPEN: 503,
  PRICE_DATA_UNAVAILABLE: 503,
  /** Not in the spec's table: operator (admin) outcomes. */
  MARKET_EXISTS: 409,
  MARKET_DELISTED: 409,
  SERVICE_UNAVAILABLE: 503,
  /**
   * Not in the spec's table: the command reached the log but its result did not come back in time;
   * it may have been executed. Look the order up (by client order id) before sending it again.
   */
  EXECUTION_STATUS_UNKNOWN: 503,
  /** Not in the spec's table: too many requests from one client (login and nonce), with Retry-After. */
  RATE_LIMITED: 429,
  /** Not in the spec's table: a request body or parameter that fails validation. */
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  INTERNAL_ERROR: 500,
} as const;
export type NativeErrorCode = keyof typeof NATIVE_ERRORS;

/** The native envelope most handlers use: `{error, code}`. */
export interface NativeErrorBody {
  error: string;
  code: NativeErrorCode;
}

/** The second native envelope some handlers use: `{success:false, error:{code,message}}`. */
export interface NativeWrappedErrorBody {
  success: false;
  error: { code: NativeErrorCode; message: string };
}
