import type { BookEvent } from './events';
import type { BookLevelChangeLog } from './level-changes';
import type { BookLevel, BookMarketState, BookSide, NewBookOrder, RestingBookOrder } from './types';

/** The events of the last command, read back as objects (BookEventBuffer also exposes its columns). */
export interface BookEventLog {
  readonly count: number;
  /** Event i as an object. */
  get(i: number): BookEvent;
  toArray(): BookEvent[];
}

/**
 * One symbol's order book as commands and queries; README.md of this folder is the contract.
 * Two implementations: OrderBook (order-book.ts), the fast one the engine runs, and
 * ReferenceOrderBook (reference-order-book.ts), a naive one the property test holds it to.
 * Snapshots are a property of the fast book's layout and are not part of this interface.
 */
export interface OrderBookApi {
  /** Events of the last command; every command clears them first. */
  readonly events: BookEventLog;
  /**
   * Price levels whose resting quantity the last command changed, with their quantity now (0: gone):
   * each level once, only net changes, bids best first then asks best first. Cleared with `events`.
   */
  readonly levelChanges: BookLevelChangeLog;
  readonly state: BookMarketState;
  /** Sequence number of the last event emitted. */
  readonly seq: number;
  readonly longOi: number;
  readonly shortOi: number;
  readonly restingOrders: number;

  /** New order. Events: REJECTED, or ACCEPTED then FILLs and possibly one EXPIRED. */
  place(o: NewBookOrder): void;
  /** Events: CANCELED, or CANCEL_REJECTED (UNKNOWN_ORDER). */
  cancel(user: number, orderId: number): boolean;
  /** Same as cancel; a rejection carries orderId -1. */
  cancelByClientId(user: number, clientOrderId: string): boolean;
  /** One CANCELED (CANCEL_ALL) per open order of the user, oldest priority first; returns how many. */
  cancelAll(user: number): number;
  /** New price and open quantity. Events: AMENDED (then FILLs/EXPIRED if it crosses), or AMEND_REJECTED. */
  amend(user: number, orderId: number, price: number, quantity: number): boolean;
  /** Events: MARKET_STATE; on CLOSE a CANCELED (MARKET_CLOSED) per open order. */
  setState(state: BookMarketState): void;
  /** Binds orders from now on; cancels nothing. */
  setOiCaps(maxLongOi: number, maxShortOi: number): void;
  /**
   * Auto-deleveraging: closes up to `lots` of `user`'s position against `counterparty`'s opposite
   * one at `price`, as a fill (user taking with `takerOrderId`, counterparty making with
   * `makerOrderId`) that only closes, for both. Events: one FILL then reduce-only trims, or none
   * when nothing can close. Returns the lots closed.
   */
  deleverage(
    takerOrderId: number,
    user: number,
    makerOrderId: number,
    counterparty: number,
    lots: number,
    price: number,
  ): number;

  levelCount(side: BookSide): number;
  /** Best price of a side in ticks, or 0 when the side is empty. */
  bestPrice(side: BookSide): number;
  /** Quantity resting at the best price of a side, or 0. */
  bestQty(side: BookSide): number;
  position(user: number): number;
  /** Users with a position, and their signed size in lots. */
  positions(): Map<number, number>;
  order(orderId: number): RestingBookOrder | undefined;
  orderIdOf(user: number, clientOrderId: string): number | undefined;
  /** A user's open orders, oldest priority first. */
  openOrders(user: number): RestingBookOrder[];
  /** Resting orders of a side in priority order (best price first, FIFO within a price). */
  ordersOf(side: BookSide): RestingBookOrder[];
  /** Resting quantity at a price (ticks) of a side, in lots; 0 when no order rests there. */
  levelQty(side: BookSide, price: number): number;
  /** Aggregated levels of a side, best first. */
  depth(side: BookSide, maxLevels?: number): BookLevel[];
}
