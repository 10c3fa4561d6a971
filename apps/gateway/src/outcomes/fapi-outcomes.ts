import {
  FAPI_ERRORS,
  FapiError,
  type FapiErrorName,
  type OutcomeError,
  type OutcomeReason,
} from '@perp/contracts';

/**
 * Each outcome reason as a FAPI business error: the row of the spec's table (FAPI_ERRORS gives its
 * code and HTTP status). Total: a reason without a row fails type checking.
 */
export const FAPI_OUTCOMES: Record<OutcomeReason, FapiErrorName> = {
  INVALID_SYMBOL: 'INVALID_SYMBOL',
  MARKET_NOT_TRADING: 'INVALID_SYMBOL',
  CONFLICTING_PARAMETERS: 'PARAMETER_NOT_REQUIRED',
  MISSING_PARAMETER: 'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
  INVALID_ORDER: 'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
  INVALID_QUANTITY: 'INVALID_QUANTITY',
  INVALID_PRICE: 'NEW_ORDER_REJECTED',
  NO_MARK_PRICE: 'NEW_ORDER_REJECTED',
  DUPLICATE_ORDER_ID: 'NEW_ORDER_REJECTED',
  DUPLICATE_CLIENT_ORDER_ID: 'API_KEY_FORMAT',
  SIDE_MISMATCH: 'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
  MARGIN_INSUFFICIENT: 'MARGIN_INSUFFICIENT',
  WOULD_TRIGGER_IMMEDIATELY: 'ORDER_WOULD_TRIGGER_IMMEDIATELY',
  POST_ONLY_WOULD_TAKE: 'NEW_ORDER_REJECTED',
  REDUCE_ONLY_REJECTED: 'REDUCEONLY_REJECT',
  OI_CAP_EXCEEDED: 'NEW_ORDER_REJECTED',
  MAX_OPEN_ORDERS: 'MAX_OPEN_ORDER_EXCEEDED',
  MAX_ALGO_ORDERS: 'NEW_ORDER_REJECTED',
  UNKNOWN_ORDER: 'UNKNOWN_ORDER',
  ORDER_NOT_FOUND: 'NO_SUCH_ORDER',
  ALGO_ORDER_DONE: 'UNKNOWN_ORDER',
  ORDER_NOT_MODIFIABLE: 'NO_SUCH_ORDER',
  INVALID_LEVERAGE: 'INVALID_LEVERAGE',
  // No FAPI endpoint sends these commands (native margin mode, collateral; operator actions).
  INVALID_MARGIN_MODE: 'UNKNOWN',
  HAS_OPEN_ORDERS: 'UNKNOWN',
  HAS_OPEN_POSITIONS: 'UNKNOWN',
  INVALID_AMOUNT: 'UNKNOWN',
  INSUFFICIENT_BALANCE: 'UNKNOWN',
  POSITION_NOT_FOUND: 'UNKNOWN',
  INVALID_VIP_TIER: 'UNKNOWN',
  MARKET_NOT_FOUND: 'UNKNOWN',
  MARKET_EXISTS: 'UNKNOWN',
  MARKET_DELISTED: 'UNKNOWN',
  INVALID_MARKET_DEFINITION: 'UNKNOWN',
  MALFORMED_COMMAND: 'UNKNOWN',
  ALREADY_APPLIED: 'UNKNOWN',
  INTERNAL_ERROR: 'UNKNOWN',
};

/** The FAPI code and HTTP status of a reason. */
export function fapiOutcome(reason: OutcomeReason): { code: number; status: number } {
  const e = FAPI_ERRORS[FAPI_OUTCOMES[reason]];
  return { code: e.code, status: e.http };
}

/** A refusal as the FapiError a handler throws, with the service's message. */
export function fapiRefusal(error: Pick<OutcomeError, 'reason' | 'msg'>): FapiError {
  return new FapiError(FAPI_OUTCOMES[error.reason], error.msg);
}

/** Binance's words for -1007. */
export const FAPI_TIMEOUT_MESSAGE =
  'Timeout waiting for response from backend server. Send status unknown; execution status unknown.';

/**
 * No answer in time: -1007 (HTTP 503) when the command reached the log, so it may have been
 * executed; -1001 when it never did, so it was not.
 */
export function fapiUnanswered(published: boolean): FapiError {
  return published
    ? new FapiError('TIMEOUT', FAPI_TIMEOUT_MESSAGE)
    : new FapiError('DISCONNECTED', 'Internal error; the order service could not be reached.');
}

/**
 * Algo orders: the reasons the spec's algo rows name keep their code; any other refusal of the
 * order (quantity, price, mark, margin...) is what the spec calls an engine rejection, -1100.
 */
const ALGO_ROWS = new Set<OutcomeReason>([
  'INVALID_SYMBOL',
  'MARKET_NOT_TRADING',
  'MISSING_PARAMETER',
  'MAX_ALGO_ORDERS',
  'MAX_OPEN_ORDERS',
  'WOULD_TRIGGER_IMMEDIATELY',
  'ORDER_NOT_FOUND',
  'ALGO_ORDER_DONE',
]);

export function fapiAlgoRefusal(error: Pick<OutcomeError, 'reason' | 'msg'>): FapiError {
  return ALGO_ROWS.has(error.reason) ? fapiRefusal(error) : new FapiError('ILLEGAL_CHARS', error.msg);
}
