import {
  NativeError,
  type NativeErrorCode,
  type OiCapDetails,
  type OutcomeError,
  type OutcomeReason,
} from '@perp/contracts';
import { Money } from '@perp/domain';

/** Each outcome reason as a native error code (NATIVE_ERRORS gives its HTTP status). Total. */
export const NATIVE_OUTCOMES: Record<OutcomeReason, NativeErrorCode> = {
  INVALID_SYMBOL: 'INVALID_SYMBOL',
  MARKET_NOT_TRADING: 'INVALID_SYMBOL',
  CONFLICTING_PARAMETERS: 'INVALID_REQUEST',
  MISSING_PARAMETER: 'INVALID_REQUEST',
  INVALID_ORDER: 'INVALID_REQUEST',
  INVALID_QUANTITY: 'INVALID_AMOUNT',
  INVALID_PRICE: 'INVALID_REQUEST',
  NO_MARK_PRICE: 'INVALID_REQUEST',
  DUPLICATE_ORDER_ID: 'INVALID_REQUEST',
  DUPLICATE_CLIENT_ORDER_ID: 'INVALID_REQUEST',
  SIDE_MISMATCH: 'INVALID_REQUEST',
  MARGIN_INSUFFICIENT: 'INSUFFICIENT_BALANCE',
  WOULD_TRIGGER_IMMEDIATELY: 'INVALID_REQUEST',
  POST_ONLY_WOULD_TAKE: 'INVALID_REQUEST',
  REDUCE_ONLY_REJECTED: 'INVALID_REQUEST',
  OI_CAP_EXCEEDED: 'OI_CAP_EXCEEDED',
  MAX_OPEN_ORDERS: 'INVALID_REQUEST',
  MAX_ALGO_ORDERS: 'INVALID_REQUEST',
  UNKNOWN_ORDER: 'ORDER_NOT_CANCELLABLE',
  ORDER_NOT_FOUND: 'ORDER_NOT_FOUND',
  ALGO_ORDER_DONE: 'ORDER_NOT_CANCELLABLE',
  ORDER_NOT_MODIFIABLE: 'ORDER_NOT_CANCELLABLE',
  INVALID_LEVERAGE: 'INVALID_LEVERAGE',
  INVALID_MARGIN_MODE: 'INVALID_MARGIN_MODE',
  HAS_OPEN_ORDERS: 'HAS_OPEN_ORDERS',
  HAS_OPEN_POSITIONS: 'HAS_OPEN_POSITIONS',
  INVALID_AMOUNT: 'INVALID_AMOUNT',
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  POSITION_NOT_FOUND: 'NOT_FOUND',
  INVALID_VIP_TIER: 'INVALID_REQUEST',
  MARKET_NOT_FOUND: 'INVALID_MARKET',
  MARKET_EXISTS: 'MARKET_EXISTS',
  MARKET_DELISTED: 'MARKET_DELISTED',
  INVALID_MARKET_DEFINITION: 'INVALID_REQUEST',
  MALFORMED_COMMAND: 'INVALID_REQUEST',
  ALREADY_APPLIED: 'INTERNAL_ERROR',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
};

/** Native wording where it differs from the service's message. */
const NATIVE_MESSAGES: Partial<Record<OutcomeReason, string>> = {
  MARGIN_INSUFFICIENT: 'available balance is too low',
};

/**
 * A refusal as the native error a handler throws (flat envelope). OI_CAP_EXCEEDED says the side,
 * the current interest, the cap and the order's delta, as the engine measured them.
 */
export function nativeRefusalOf(error: OutcomeError, symbol?: string): NativeError {
  const code = NATIVE_OUTCOMES[error.reason];
  if (error.reason === 'OI_CAP_EXCEEDED' && error.details && symbol)
    return new NativeError(code, oiCapMessage(symbol, error.details));
  return new NativeError(code, NATIVE_MESSAGES[error.reason] ?? error.msg);
}

/**
 * No answer from `service` in time: EXECUTION_STATUS_UNKNOWN (503) when the command reached the
 * log, so it may have been executed; SERVICE_UNAVAILABLE (503) when it never did.
 */
export function nativeUnanswered(published: boolean, service = 'the risk service'): NativeError {
  return published
    ? new NativeError(
        'EXECUTION_STATUS_UNKNOWN',
        `${service} did not answer in time; the command was sent and its outcome is unknown: look it up before sending it again`,
      )
    : new NativeError(
        'SERVICE_UNAVAILABLE',
        `${service} could not be reached; nothing was sent: retry later`,
      );
}

/** OI_CAP_EXCEEDED's message: machine-readable `key=value` pairs after a sentence. */
export function oiCapMessage(symbol: string, d: OiCapDetails): string {
  const n = (v: string) => new Money(v).toFixed();
  return (
    `order would raise ${symbol} ${d.side} open interest above its cap: ` +
    `current=${n(d.current)} cap=${n(d.cap)} requested_delta=${n(d.requestedDelta)}`
  );
}
