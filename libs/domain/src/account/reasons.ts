/**
 * Reject reasons, spelled as the names of the FAPI error table (libs/contracts, FAPI_ERRORS) and of
 * the native error table (NATIVE_ERRORS). Domain cannot import contracts (contracts depends on
 * domain), so the names are repeated here and a test checks each exists there.
 */
export const PRE_TRADE_REJECT_REASONS = [
  'INVALID_SYMBOL', // -1121: market missing or not TRADING
  'PARAMETER_NOT_REQUIRED', // -1106: quantity and quoteOrderQty both sent
  'MANDATORY_PARAM_EMPTY_OR_MALFORMED', // -1102: neither sent, or the type's price missing
  'NEW_ORDER_REJECTED', // -2010: reference price <= 0 or unknown
  'INVALID_QUANTITY', // -1013: below one lot, or notional outside [min, max] order size
  'API_KEY_FORMAT', // -2014: newClientOrderId of an active order
  'MARGIN_INSUFFICIENT', // -2019: available balance below the margin to freeze
] as const;
export type PreTradeRejectReason = (typeof PRE_TRADE_REJECT_REASONS)[number];

export const LEVERAGE_REJECT_REASONS = ['INVALID_SYMBOL', 'INVALID_LEVERAGE'] as const;
export type LeverageRejectReason = (typeof LEVERAGE_REJECT_REASONS)[number];

/** Native API codes of the margin-mode switch and the isolated collateral endpoints. */
export const NATIVE_ACCOUNT_REJECT_REASONS = [
  'INVALID_MARGIN_MODE',
  'HAS_OPEN_ORDERS',
  'HAS_OPEN_POSITIONS',
  'INVALID_SYMBOL',
  'INVALID_AMOUNT',
  'INSUFFICIENT_BALANCE',
  'NOT_FOUND',
] as const;
export type NativeAccountRejectReason = (typeof NATIVE_ACCOUNT_REJECT_REASONS)[number];

export type AccountRejection<R extends string> = { ok: false; reason: R; message: string };

export function reject<R extends string>(reason: R, message: string): AccountRejection<R> {
  return { ok: false, reason, message };
}
