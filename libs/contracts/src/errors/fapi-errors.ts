/** The spec's FAPI business error table (and Binance's -1007): code, HTTP status and name, as typed values. */
export const FAPI_ERRORS = {
  UNKNOWN: { code: -1000, http: 500 },
  DISCONNECTED: { code: -1001, http: 500 },
  TOO_MANY_REQUESTS: { code: -1003, http: 429 },
  /**
   * Not in the spec's table: Binance's answer when a command reached the log but its result did not
   * come back in time. The order may exist; look it up by client order id before sending it again.
   */
  TIMEOUT: { code: -1007, http: 503 },
  INVALID_QUANTITY: { code: -1013, http: 400 },
  INVALID_TIMESTAMP: { code: -1021, http: 400 },
  ILLEGAL_CHARS: { code: -1100, http: 400 },
  MANDATORY_PARAM_EMPTY_OR_MALFORMED: { code: -1102, http: 400 },
  PARAMETER_NOT_REQUIRED: { code: -1106, http: 400 },
  INVALID_INTERVAL: { code: -1120, http: 400 },
  INVALID_SYMBOL: { code: -1121, http: 400 },
  INVALID_LISTEN_KEY: { code: -1125, http: 404 },
  INVALID_DATA_FOR_PARAMETER: { code: -1130, http: 400 },
  NEW_ORDER_REJECTED: { code: -2010, http: 400 },
  UNKNOWN_ORDER: { code: -2011, http: 400 },
  NO_SUCH_ORDER: { code: -2013, http: 404 },
  API_KEY_FORMAT: { code: -2014, http: 400 },
  MARGIN_INSUFFICIENT: { code: -2019, http: 400 },
  ORDER_WOULD_TRIGGER_IMMEDIATELY: { code: -2021, http: 400 },
  REDUCEONLY_REJECT: { code: -2022, http: 400 },
  /** Not in the spec's table: Binance's answer when the symbol's open-order maximum is reached. */
  MAX_OPEN_ORDER_EXCEEDED: { code: -2025, http: 400 },
  INVALID_LEVERAGE: { code: -4028, http: 400 },
  NO_NEED_TO_CHANGE_MARGIN_TYPE: { code: -4046, http: 400 },
  NO_NEED_TO_CHANGE_POSITION_SIDE: { code: -4059, http: 400 },
} as const;

export type FapiErrorName = keyof typeof FAPI_ERRORS;
export type FapiErrorCode = (typeof FAPI_ERRORS)[FapiErrorName]['code'];

/** FAPI business error body: `{code, msg}`. */
export interface FapiErrorBody {
  code: FapiErrorCode;
  msg: string;
}
