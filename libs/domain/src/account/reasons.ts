/**
 * Reject reasons, spelled as the neutral outcome reasons of libs/contracts (OUTCOME_REASONS).
 * Domain cannot import contracts (contracts depends on domain), so the names are repeated here and
 * a test checks each exists there; each API surface maps them to its own codes at its edge.
 */
export const PRE_TRADE_REJECT_REASONS = [
  'INVALID_SYMBOL', // no market with the symbol
  'MARKET_NOT_TRADING', // the market is halted or delisted
  'CONFLICTING_PARAMETERS', // quantity and quoteOrderQty both sent
  'MISSING_PARAMETER', // neither sent, or the type's price or stopPrice missing
  'INVALID_PRICE', // price or stopPrice not above 0
  'NO_MARK_PRICE', // the order is priced at the mark and there is none
  'INVALID_QUANTITY', // below one lot, or notional outside [min, max] order size
  'DUPLICATE_CLIENT_ORDER_ID', // newClientOrderId of an active order
  'MARGIN_INSUFFICIENT', // available balance below the margin to freeze
] as const;
export type PreTradeRejectReason = (typeof PRE_TRADE_REJECT_REASONS)[number];

export const LEVERAGE_REJECT_REASONS = ['INVALID_SYMBOL', 'INVALID_LEVERAGE'] as const;
export type LeverageRejectReason = (typeof LEVERAGE_REJECT_REASONS)[number];

/** The margin-mode switch and the isolated collateral transfers. */
export const MARGIN_REJECT_REASONS = [
  'INVALID_MARGIN_MODE',
  'HAS_OPEN_ORDERS',
  'HAS_OPEN_POSITIONS',
  'INVALID_SYMBOL',
  'INVALID_AMOUNT',
  'INSUFFICIENT_BALANCE',
  'POSITION_NOT_FOUND',
] as const;
export type MarginRejectReason = (typeof MARGIN_REJECT_REASONS)[number];

export type AccountRejection<R extends string> = { ok: false; reason: R; message: string };

export function reject<R extends string>(reason: R, message: string): AccountRejection<R> {
  return { ok: false, reason, message };
}
