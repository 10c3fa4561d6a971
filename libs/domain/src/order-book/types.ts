/**
 * Vocabulary of the order book: small integer codes (they index typed arrays and compare as Smis on the
 * hot path), with names for logs and Kafka messages.
 */

export const BookSide = { BUY: 0, SELL: 1 } as const;
export type BookSide = (typeof BookSide)[keyof typeof BookSide];

export const BookOrderType = { LIMIT: 0, MARKET: 1 } as const;
export type BookOrderType = (typeof BookOrderType)[keyof typeof BookOrderType];

/** GTX is post-only: rejected if any part would take; once resting it behaves as GTC. */
export const BookTimeInForce = { GTC: 0, IOC: 1, FOK: 2, GTX: 3 } as const;
export type BookTimeInForce = (typeof BookTimeInForce)[keyof typeof BookTimeInForce];

/** Binance's self-trade prevention modes; the taker's mode decides, as on Binance. */
export const BookStpMode = { EXPIRE_TAKER: 0, EXPIRE_MAKER: 1, EXPIRE_BOTH: 2, NONE: 3 } as const;
export type BookStpMode = (typeof BookStpMode)[keyof typeof BookStpMode];

export const BookMarketState = { TRADING: 0, HALT: 1, CLOSE: 2 } as const;
export type BookMarketState = (typeof BookMarketState)[keyof typeof BookMarketState];

export const BookEventKind = {
  /** A new order passed every check; `qty` is its effective quantity (reduce-only capping applied). */
  ACCEPTED: 1,
  /** A new order was refused; nothing changed. */
  REJECTED: 2,
  FILL: 3,
  /** Taken off the book by a command (cancel, cancel-all, delisting, reduce-only trim). */
  CANCELED: 4,
  /** Ended by its own terms: IOC/market remainder, FOK not fillable, self-trade prevention. */
  EXPIRED: 5,
  /** Price or quantity changed; `flags & BookEventFlag.KEPT_PRIORITY` tells whether it kept its place. */
  AMENDED: 6,
  CANCEL_REJECTED: 7,
  AMEND_REJECTED: 8,
  MARKET_STATE: 9,
} as const;
export type BookEventKind = (typeof BookEventKind)[keyof typeof BookEventKind];

export const BookEventFlag = {
  KEPT_PRIORITY: 1,
  /** ACCEPTED: the quantity was capped by reduce-only. */
  CAPPED: 2,
} as const;

export const BookReason = {
  NONE: 0,
  // rejections of a new order (and of an amend, where they apply)
  INVALID_ORDER: 1,
  INVALID_QUANTITY: 2,
  INVALID_PRICE: 3,
  DUPLICATE_ORDER_ID: 4,
  DUPLICATE_CLIENT_ORDER_ID: 5,
  MARKET_NOT_TRADING: 6,
  POST_ONLY_WOULD_TAKE: 7,
  REDUCE_ONLY_REJECTED: 8,
  OI_CAP_EXCEEDED: 9,
  UNKNOWN_ORDER: 10,
  // why an order left the book
  USER_CANCELED: 11,
  CANCEL_ALL: 12,
  MARKET_CLOSED: 13,
  REDUCE_ONLY_TRIM: 14,
  IOC_REMAINDER: 15,
  FOK_UNFILLABLE: 16,
  NO_LIQUIDITY: 17,
  SELF_TRADE: 18,
  // an amend
  AMENDED_BY_USER: 19,
} as const;
export type BookReason = (typeof BookReason)[keyof typeof BookReason];

const REASON_NAMES: readonly string[] = (() => {
  const names: string[] = [];
  for (const [name, code] of Object.entries(BookReason)) names[code] = name;
  return names;
})();

export function bookReasonName(reason: number): string {
  return REASON_NAMES[reason] ?? 'UNKNOWN';
}

/**
 * The reasons of a refused command (REJECTED, CANCEL_REJECTED, AMEND_REJECTED), named as the
 * outcome reasons of libs/contracts, which the engine puts on the bus as they are.
 */
export const BOOK_REJECT_REASONS = [
  'INVALID_ORDER',
  'INVALID_QUANTITY',
  'INVALID_PRICE',
  'DUPLICATE_ORDER_ID',
  'DUPLICATE_CLIENT_ORDER_ID',
  'MARKET_NOT_TRADING',
  'POST_ONLY_WOULD_TAKE',
  'REDUCE_ONLY_REJECTED',
  'OI_CAP_EXCEEDED',
  'UNKNOWN_ORDER',
] as const satisfies readonly (keyof typeof BookReason)[];
export type BookRejectReason = (typeof BOOK_REJECT_REASONS)[number];

/**
 * A new order. Identifiers are safe integers: the shard interns order UUIDs and user addresses to
 * numbers at the edge, so the book never hashes strings on the hot path. Callers may reuse one object.
 */
export interface NewBookOrder {
  orderId: number;
  user: number;
  side: BookSide;
  type: BookOrderType;
  timeInForce: BookTimeInForce;
  /** Limit price in ticks; ignored for MARKET. */
  price: number;
  /** Quantity in lots. */
  quantity: number;
  reduceOnly?: boolean;
  /** Default EXPIRE_TAKER, as on Binance. */
  stp?: BookStpMode;
  /** Unique among the user's open orders when given. */
  clientOrderId?: string;
}

export interface OrderBookConfig {
  /** Per-side open-interest caps in lots; default: no cap. */
  maxLongOi?: number;
  maxShortOi?: number;
  /**
   * Largest accepted order quantity in lots, default 2^40. Totals (levels, positions, OI) are exact
   * below 2^53, so markets should set it from their maximum order size.
   */
  maxOrderQty?: number;
  /** Largest accepted price in ticks. Default 2^48. */
  maxPrice?: number;
  state?: BookMarketState;
  /** Orders to size the pools for up front (they grow by doubling anyway). */
  initialCapacity?: number;
}

export interface RestingBookOrder {
  orderId: number;
  user: number;
  side: BookSide;
  price: number;
  quantity: number;
  reduceOnly: boolean;
  postOnly: boolean;
  stp: BookStpMode;
  clientOrderId?: string;
}

export interface BookLevel {
  price: number;
  quantity: number;
  orders: number;
}
