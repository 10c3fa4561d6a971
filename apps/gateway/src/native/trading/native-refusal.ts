import { type FapiError, type FapiErrorName, NativeError, type NativeErrorCode } from '@perp/contracts';
import { nativeRefusalOf, nativeUnanswered } from '../../outcomes/native-outcomes';
import type { RiskOutcome } from '../../risk/risk-client';

/** A refusal from risk or the engine behind it. */
export type RiskRefusal = Exclude<RiskOutcome, { ok: true }>;

/**
 * A risk or engine refusal as the native error the handler throws (flat envelope); `symbol` names
 * the market in an open-interest refusal.
 */
export function nativeRefusal(r: RiskRefusal, symbol?: string): NativeError {
  if ('unavailable' in r) return nativeUnanswered(r.published);
  return nativeRefusalOf(r.error, symbol);
}

/** The FAPI validation errors of the shared New Order helpers that have a native code of their own. */
const FROM_FAPI: Partial<Record<FapiErrorName, NativeErrorCode>> = {
  INVALID_QUANTITY: 'INVALID_AMOUNT',
  INVALID_SYMBOL: 'INVALID_SYMBOL',
  INVALID_LEVERAGE: 'INVALID_LEVERAGE',
};

/** A FAPI validation error of the shared New Order helpers, in native terms. */
export function nativeFromFapi(e: FapiError): NativeError {
  return new NativeError(FROM_FAPI[e.errorName] ?? 'INVALID_REQUEST', e.message);
}
