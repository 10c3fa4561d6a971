import { z } from 'zod';
import { decimal } from '../messages/primitives';

/**
 * Why a command was refused, as the core says it on the bus: one name per meaning, no API's
 * numbers. Each surface maps a reason to its own code once, at its edge (the gateway's FAPI and
 * native tables); the domain, risk and the engine speak only these names.
 */
export const OUTCOME_REASONS = [
  // The market
  /** No market with this symbol. */
  'INVALID_SYMBOL',
  /** The market exists but does not take orders now (halted or delisted). */
  'MARKET_NOT_TRADING',

  // The shape of an order
  /** Two parameters that exclude each other were both sent (quantity and quoteOrderQty). */
  'CONFLICTING_PARAMETERS',
  /** A parameter the order type needs is missing (quantity, price, stopPrice). */
  'MISSING_PARAMETER',
  /** Side, type, time in force or self-trade mode the book does not know, or MARKET with GTX. */
  'INVALID_ORDER',
  /** Below one lot, not a whole number of lots, or a notional outside the market's order size. */
  'INVALID_QUANTITY',
  /** A price or stopPrice that is not positive, off the tick grid or above the book's range. */
  'INVALID_PRICE',
  /** The order needs the mark price (MARKET, or a trigger to compare with) and there is none. */
  'NO_MARK_PRICE',
  /** The order id is taken. */
  'DUPLICATE_ORDER_ID',
  /** The client order id belongs to one of the user's open orders. */
  'DUPLICATE_CLIENT_ORDER_ID',
  /** Amend: the side sent differs from the order's. */
  'SIDE_MISMATCH',

  // Account and market limits
  /** The available balance is below the margin the order would freeze. */
  'MARGIN_INSUFFICIENT',
  /** A trigger order whose condition the mark price already meets. */
  'WOULD_TRIGGER_IMMEDIATELY',
  /** A post-only (GTX) order would take liquidity. */
  'POST_ONLY_WOULD_TAKE',
  /** A reduce-only order with nothing left to reduce (no opposite position, or covered already). */
  'REDUCE_ONLY_REJECTED',
  /** The order would raise open interest above the market's cap; `details` says which and by how much. */
  'OI_CAP_EXCEEDED',

  /** The user already has the market's maximum of open orders on the symbol. */
  'MAX_OPEN_ORDERS',
  /** The user already has the market's maximum of waiting trigger (algo) orders on the symbol. */
  'MAX_ALGO_ORDERS',

  // Open orders
  /** Cancel or amend of an order the book does not hold (done, or never placed). */
  'UNKNOWN_ORDER',
  /** No such order of the user (algo orders: never placed, or forgotten). */
  'ORDER_NOT_FOUND',
  /** An algo order that triggered, finished, expired or failed: nothing to cancel. */
  'ALGO_ORDER_DONE',
  /** Amend refused: no such open order, not a LIMIT order, or the new quantity is not above what filled. */
  'ORDER_NOT_MODIFIABLE',

  // Account settings and transfers
  'INVALID_LEVERAGE',
  'INVALID_MARGIN_MODE',
  'HAS_OPEN_ORDERS',
  'HAS_OPEN_POSITIONS',
  /** An amount that is not positive, or more than may be moved. */
  'INVALID_AMOUNT',
  /** A transfer larger than the available balance. */
  'INSUFFICIENT_BALANCE',
  /** No open position on the symbol. */
  'POSITION_NOT_FOUND',
  /** A VIP tier the chain does not define. */
  'INVALID_VIP_TIER',

  // Operator market changes
  'MARKET_NOT_FOUND',
  'MARKET_EXISTS',
  'MARKET_DELISTED',
  /** A market definition that does not parse. */
  'INVALID_MARKET_DEFINITION',

  // The service
  /** A command that does not match its topic's schema. */
  'MALFORMED_COMMAND',
  /** The command's input was applied before (a replay); nothing changed. */
  'ALREADY_APPLIED',
  /** An outcome the service could not name. */
  'INTERNAL_ERROR',
] as const;

export type OutcomeReason = (typeof OUTCOME_REASONS)[number];

export const outcomeReason = z.enum(OUTCOME_REASONS);

export function isOutcomeReason(name: string): name is OutcomeReason {
  return (OUTCOME_REASONS as readonly string[]).includes(name);
}

/**
 * OI_CAP_EXCEEDED: the side whose interest the order would raise over its cap (the order's own
 * side when that one is over, else the other), its interest now, the cap, and the order's part
 * that does not close the user's own position (all in base units).
 */
export const oiCapDetails = z.object({
  side: z.enum(['long', 'short']),
  current: decimal,
  cap: decimal,
  requestedDelta: decimal,
});
export type OiCapDetails = z.infer<typeof oiCapDetails>;

/** A refusal on the bus (replies, `command.result`): the reason, a human message, details if any. */
export const outcomeError = z.object({
  reason: outcomeReason,
  msg: z.string(),
  /** With OI_CAP_EXCEEDED. */
  details: oiCapDetails.optional(),
});
export type OutcomeError = z.infer<typeof outcomeError>;
