import { FapiError, NATIVE_ERRORS, NativeError, type NativeErrorCode } from '@perp/contracts';
import type { Money } from '@perp/domain';
import type { RiskOutcome } from '../../risk/risk-client';

/** A refusal from risk or the engine behind it. */
export type RiskRefusal = Exclude<RiskOutcome, { ok: true }>;

/** The engine's reason name for an order over the open-interest cap (its REJECTED reason, -2010). */
export const OI_CAP_REASON = 'OI_CAP_EXCEEDED';

/**
 * FAPI codes (what risk answers where the FAPI table has the reason) to native codes. Codes not
 * listed become INVALID_REQUEST with the service's message (reduceOnly, post-only, duplicate ids).
 */
const BY_FAPI_CODE: Record<number, NativeErrorCode> = {
  [-1000]: 'INTERNAL_ERROR',
  [-1001]: 'SERVICE_UNAVAILABLE',
  [-1013]: 'INVALID_AMOUNT',
  [-1121]: 'INVALID_SYMBOL',
  [-2011]: 'ORDER_NOT_CANCELLABLE',
  [-2013]: 'ORDER_NOT_CANCELLABLE',
  [-2019]: 'INSUFFICIENT_BALANCE',
  [-4028]: 'INVALID_LEVERAGE',
};

function isNativeCode(code: string): code is NativeErrorCode {
  return Object.prototype.hasOwnProperty.call(NATIVE_ERRORS, code);
}

/** The engine refused an order because it would push open interest over the market's cap. */
export function isOiCapRefusal(r: RiskRefusal): boolean {
  if ('unavailable' in r) return false;
  return r.code === -2010 && (r.reason === OI_CAP_REASON || r.msg === OI_CAP_REASON);
}

/** The native code of a refusal: the domain's own name when it is a native code, else by FAPI code. */
export function nativeCodeOf(r: RiskRefusal): NativeErrorCode {
  if ('unavailable' in r) return 'SERVICE_UNAVAILABLE';
  if (isOiCapRefusal(r)) return 'OI_CAP_EXCEEDED';
  if (typeof r.code === 'string') return isNativeCode(r.code) ? r.code : 'INVALID_REQUEST';
  return BY_FAPI_CODE[r.code] ?? 'INVALID_REQUEST';
}

/** A risk or engine refusal as the native error the handler throws (flat envelope). */
export function nativeRefusal(r: RiskRefusal): NativeError {
  if ('unavailable' in r)
    return new NativeError('SERVICE_UNAVAILABLE', 'the risk service did not answer in time; retry later');
  const code = nativeCodeOf(r);
  const msg = code === 'INSUFFICIENT_BALANCE' && r.code === -2019 ? 'available balance is too low' : r.msg;
  return new NativeError(code, msg);
}

/** A FAPI validation error of the shared New Order helpers, in native terms. */
export function nativeFromFapi(e: FapiError): NativeError {
  const code = BY_FAPI_CODE[e.code] ?? 'INVALID_REQUEST';
  return new NativeError(code, e.message);
}

export interface OiCapDetails {
  symbol: string;
  /** The side whose interest the order would raise: long for a buy, short for a sell. */
  side: 'long' | 'short';
  current: Money;
  cap: Money;
  /** The part of the order that does not close the caller's own position (the engine's worst case). */
  requestedDelta: Money;
}

/**
 * Which cap an opening order hits. The engine checks both sides with the order's opening quantity
 * (long and short interest move together in a perpetual): the order's own side is reported when
 * it is over, else the other side (caps may differ).
 */
export function oiCapDetails(
  symbol: string,
  side: 'BUY' | 'SELL',
  oi: { long: Money; short: Money },
  caps: { long: Money; short: Money },
  requestedDelta: Money,
): OiCapDetails {
  const own = side === 'BUY' ? 'long' : 'short';
  const other = own === 'long' ? 'short' : 'long';
  const over = (s: 'long' | 'short') => oi[s].plus(requestedDelta).gt(caps[s]);
  const pick = over(own) || !over(other) ? own : other;
  return { symbol, side: pick, current: oi[pick], cap: caps[pick], requestedDelta };
}

/** OI_CAP_EXCEEDED's message: machine-readable `key=value` pairs after a sentence. */
export function oiCapMessage(d: OiCapDetails): string {
  return (
    `order would raise ${d.symbol} ${d.side} open interest above its cap: ` +
    `current=${d.current.toFixed()} cap=${d.cap.toFixed()} requested_delta=${d.requestedDelta.toFixed()}`
  );
}
