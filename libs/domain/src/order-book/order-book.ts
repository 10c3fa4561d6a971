import { MAX_ORDER_LOTS, MAX_PRICE_TICKS } from '../markets/order-limits';
import { Matcher } from './matching';
import type { OrderBookApi } from './order-book-api';
import { Slot } from './order-pool';
import { encodeSnapshot, loadSnapshot, openSnapshot } from './snapshot-codec';
import {
  BookEventFlag,
  BookEventKind,
  BookMarketState,
  NewBookOrder,
  OrderBookConfig,
  BookOrderType,
  BookReason,
  BookSide,
  BookStpMode,
  BookTimeInForce,
} from './types';

// Module-local copies: an imported binding compiles to a getter call on the module object.
const Reason = { ...BookReason };
const Kind = { ...BookEventKind };
const Tif = { ...BookTimeInForce };
const Stp = { ...BookStpMode };
const State = { ...BookMarketState };
const Type = { ...BookOrderType };
const Flag = { ...BookEventFlag };
const { NIL, F_SELL, F_RO, F_POST, STP_SHIFT } = Slot;
const BUY = BookSide.BUY;

/**
 * One symbol's order book and matcher: price-time priority, integer ticks and lots, deterministic.
 * It also owns the per-user position of the symbol (fills are the only way it changes), hence
 * reduce-only capping, the open-interest caps and each fill's open/close split.
 *
 * Three layers, one per file: RestingOrders (resting-orders.ts: the pools of orders, users and
 * price levels of order-pool.ts and price-levels.ts, and the queries) <- Matcher (matching.ts:
 * fills, positions, OI, reduce-only upkeep, FOK dry run) <- OrderBook (this file: the commands and
 * their checks). Snapshots are encoded by snapshot-codec.ts. ReferenceOrderBook
 * (reference-order-book.ts) is the naive model the property test holds this one to.
 *
 * Every command clears `events` and writes its events there (see BookEventBuffer); `seq` numbers them.
 *
 * Policies (README.md of this folder has the whole contract):
 * - reduceOnly: rejected (REDUCE_ONLY_REJECTED) when the user has no opposite position or when
 *   other resting reduce-only orders of the same side already cover it; otherwise the quantity is
 *   capped to position - those orders. After any fill the book keeps "resting reduce-only quantity
 *   of a side <= position it can close", trimming the worst-priority reduce-only orders first
 *   (reason REDUCE_ONLY_TRIM), so a reduce-only order can never open a position.
 * - Open-interest caps are checked when an order enters the book (new, or amend that loses
 *   priority) against its worst case: all of it that does not close the user's own position opens.
 *   Every fill's OI increase is at most the taker's opening part, so this bounds OI at every fill
 *   and fills never need to be refused mid-match.
 */
export class OrderBook extends Matcher implements OrderBookApi {
  private _state: BookMarketState;
  private readonly maxOrderQty: number;
  private readonly maxPrice: number;

  constructor(config: OrderBookConfig = {}) {
    super(
      config.initialCapacity,
      config.maxLongOi ?? Number.MAX_SAFE_INTEGER,
      config.maxShortOi ?? Number.MAX_SAFE_INTEGER,
    );
    this._state = config.state ?? State.TRADING;
    this.maxOrderQty = config.maxOrderQty ?? MAX_ORDER_LOTS;
    this.maxPrice = config.maxPrice ?? MAX_PRICE_TICKS;
  }

  get state(): BookMarketState {
    return this._state;
  }

  // ------------------------------------------------------------------ commands

  /** New order. Events: REJECTED, or ACCEPTED then FILLs and possibly one EXPIRED. */
  place(o: NewBookOrder): void {
    const { events: ev, users } = this;
    ev.count = 0;
    this.levels.beginCommand();
    const side = o.side;
    const type = o.type;
    const tif = o.timeInForce;
    const stp = o.stp ?? Stp.EXPIRE_TAKER;
    const id = o.orderId;
    const userId = o.user;
    const isMarket = type === Type.MARKET;
    const price = isMarket ? 0 : o.price;
    const qty0 = o.quantity;
    let reason: number = Reason.NONE;
    if (this._state !== State.TRADING) reason = Reason.MARKET_NOT_TRADING;
    else if (
      (side !== 0 && side !== 1) ||
      (type !== 0 && type !== 1) ||
      !(tif === 0 || tif === 1 || tif === 2 || tif === 3) ||
      !(stp === 0 || stp === 1 || stp === 2 || stp === 3) ||
      (isMarket && tif === Tif.GTX) ||
      !Number.isSafeInteger(id) ||
      !Number.isSafeInteger(userId)
    )
      reason = Reason.INVALID_ORDER;
    else if (!this.validQty(qty0)) reason = Reason.INVALID_QUANTITY;
    else if (!isMarket && !this.validPrice(price)) reason = Reason.INVALID_PRICE;
    else if (this.orders.ids.get(id) !== NIL) reason = Reason.DUPLICATE_ORDER_ID;
    if (reason !== Reason.NONE) {
      ev.order(Kind.REJECTED, ++this._seq, reason, 0, id, userId, side, price, qty0, 0);
      return;
    }
    const u = users.intern(userId);
    const cid = o.clientOrderId;
    if (cid !== undefined) {
      const m = users.cids[u];
      if (m !== undefined && m.has(cid)) {
        ev.order(
          Kind.REJECTED,
          ++this._seq,
          Reason.DUPLICATE_CLIENT_ORDER_ID,
          0,
          id,
          userId,
          side,
          price,
          qty0,
          0,
        );
        return;
      }
    }
    let flags = side | (stp << STP_SHIFT) | (tif === Tif.GTX ? F_POST : 0);
    let qty = qty0;
    let accFlags = 0;
    const pos = users.pos[u];
    const closable = side === BUY ? (pos < 0 ? -pos : 0) : pos > 0 ? pos : 0;
    if (o.reduceOnly) {
      flags |= F_RO;
      const room = closable - users.ro[2 * u + side];
      if (room <= 0) reason = Reason.REDUCE_ONLY_REJECTED;
      else if (qty > room) {
        qty = room;
        accFlags = Flag.CAPPED;
      }
    } else if (qty > closable && this.exceedsOi(qty - closable)) reason = Reason.OI_CAP_EXCEEDED;
    if (reason === Reason.NONE && tif === Tif.GTX && this.crosses(side, price))
      reason = Reason.POST_ONLY_WOULD_TAKE;
    if (reason !== Reason.NONE) {
      ev.order(Kind.REJECTED, ++this._seq, reason, 0, id, userId, side, price, qty0, 0);
      return;
    }
    ev.order(Kind.ACCEPTED, ++this._seq, 0, accFlags, id, userId, side, price, qty, qty);
    if (tif === Tif.FOK && !this.fillable(u, side, isMarket, price, qty, stp)) {
      ev.order(Kind.EXPIRED, ++this._seq, Reason.FOK_UNFILLABLE, 0, id, userId, side, price, qty, 0);
      return;
    }
    const left = this.match(id, u, side, isMarket, price, qty, flags);
    if (left === 0) return;
    if (isMarket || tif === Tif.IOC || tif === Tif.FOK) {
      const r = isMarket ? Reason.NO_LIQUIDITY : Reason.IOC_REMAINDER;
      ev.order(Kind.EXPIRED, ++this._seq, r, 0, id, userId, side, price, left, 0);
      return;
    }
    this.rest(id, u, side, price, left, flags, cid);
  }

  /** Cancels a user's order. Events: CANCELED, or CANCEL_REJECTED (UNKNOWN_ORDER). */
  cancel(user: number, orderId: number): boolean {
    this.events.count = 0;
    this.levels.beginCommand();
    const o = this.orders.ids.get(orderId);
    if (o === NIL || this.users.id[this.orders.user[o]] !== user) {
      this.events.order(
        Kind.CANCEL_REJECTED,
        ++this._seq,
        Reason.UNKNOWN_ORDER,
        0,
        orderId,
        user,
        0,
        0,
        0,
        0,
      );
      return false;
    }
    this.emitGone(Kind.CANCELED, o, Reason.USER_CANCELED);
    this.removeOrder(o);
    return true;
  }

  /** Cancels by client order id; a rejection carries orderId -1. */
  cancelByClientId(user: number, clientOrderId: string): boolean {
    this.events.count = 0;
    this.levels.beginCommand();
    const u = this.users.lookup(user);
    const o = u === NIL ? undefined : this.users.cids[u]?.get(clientOrderId);
    if (o === undefined) {
      this.events.order(Kind.CANCEL_REJECTED, ++this._seq, Reason.UNKNOWN_ORDER, 0, -1, user, 0, 0, 0, 0);
      return false;
    }
    this.emitGone(Kind.CANCELED, o, Reason.USER_CANCELED);
    this.removeOrder(o);
    return true;
  }

  /** Cancels every open order of a user (oldest priority first); returns how many. */
  cancelAll(user: number): number {
    this.events.count = 0;
    this.levels.beginCommand();
    const users = this.users;
    const u = users.lookup(user);
    if (u === NIL) return 0;
    let n = 0;
    for (let o = users.head[u]; o !== NIL; o = users.head[u]) {
      this.emitGone(Kind.CANCELED, o, Reason.CANCEL_ALL);
      this.removeOrder(o);
      n++;
    }
    return n;
  }

  /**
   * Changes a resting order's price and/or open quantity (`quantity` is the new open quantity, not
   * the original one). Same price and a smaller quantity keep its place; a larger quantity or another
   * price sends it to the back, and a price that crosses trades like a new order with the same id.
   * Events: AMENDED (then FILLs/EXPIRED when it crosses), or AMEND_REJECTED with the order untouched.
   */
  amend(user: number, orderId: number, price: number, quantity: number): boolean {
    const { events: ev, orders, users, levels } = this;
    ev.count = 0;
    levels.beginCommand();
    const o = orders.ids.get(orderId);
    let reason: number = Reason.NONE;
    if (this._state !== State.TRADING) reason = Reason.MARKET_NOT_TRADING;
    else if (o === NIL || users.id[orders.user[o]] !== user) reason = Reason.UNKNOWN_ORDER;
    else if (!this.validQty(quantity)) reason = Reason.INVALID_QUANTITY;
    else if (!this.validPrice(price)) reason = Reason.INVALID_PRICE;
    if (reason !== Reason.NONE) {
      ev.order(Kind.AMEND_REJECTED, ++this._seq, reason, 0, orderId, user, 0, price, quantity, 0);
      return false;
    }
    const u = orders.user[o];
    const flags = orders.flags[o];
    const side = flags & F_SELL;
    const oldPrice = orders.price[o];
    const oldQty = orders.qty[o];
    const pos = users.pos[u];
    const closable = side === BUY ? (pos < 0 ? -pos : 0) : pos > 0 ? pos : 0;
    let qty = quantity;
    if (flags & F_RO) {
      const room = closable - (users.ro[2 * u + side] - oldQty);
      if (qty > room) qty = room;
    } else if ((price !== oldPrice || qty > oldQty) && qty > closable && this.exceedsOi(qty - closable))
      reason = Reason.OI_CAP_EXCEEDED;
    if (reason === Reason.NONE && price !== oldPrice && flags & F_POST && this.crosses(side, price))
      reason = Reason.POST_ONLY_WOULD_TAKE;
    if (reason !== Reason.NONE) {
      ev.order(Kind.AMEND_REJECTED, ++this._seq, reason, 0, orderId, user, side, price, quantity, 0);
      return false;
    }
    if (price === oldPrice && qty <= oldQty) {
      if (qty < oldQty) {
        const d = oldQty - qty;
        orders.qty[o] = qty;
        levels.touch(orders.level[o]);
        levels.qty[orders.level[o]] -= d;
        if (flags & F_RO) users.ro[2 * u + side] -= d;
      }
      ev.order(
        Kind.AMENDED,
        ++this._seq,
        Reason.AMENDED_BY_USER,
        Flag.KEPT_PRIORITY,
        orderId,
        user,
        side,
        price,
        qty,
        qty,
      );
      return true;
    }
    ev.order(Kind.AMENDED, ++this._seq, Reason.AMENDED_BY_USER, 0, orderId, user, side, price, qty, qty);
    if (price === oldPrice) {
      // Larger at the same price: to the back of its level and of its user's list.
      const l = orders.level[o];
      this.detach(o);
      this.attach(o, levels.count[l] === 0 ? levels.levelFor(side, price) : l, price, qty);
      return true;
    }
    // Another price: the order keeps its slot and id; off the book, it trades like a new order
    // with this id when it crosses, then rests with what is left.
    if (!this.crosses(side, price)) {
      // Nothing trades: look for the new level from the old one (moves are usually small).
      const l = orders.level[o];
      const hint = levels.count[l] > 1 ? l : levels.prev[l] !== NIL ? levels.prev[l] : levels.next[l];
      this.detach(o);
      this.attach(
        o,
        hint === NIL ? levels.levelFor(side, price) : levels.levelNear(side, price, hint),
        price,
        qty,
      );
      return true;
    }
    this.detach(o);
    const left = this.match(orderId, u, side, false, price, qty, flags);
    if (left > 0) this.attach(o, levels.levelFor(side, price), price, left);
    else this.release(o);
    return true;
  }

  /** TRADING, HALT (only cancels pass) or CLOSE (delisted: every open order is canceled). */
  setState(state: BookMarketState): void {
    const ev = this.events;
    ev.count = 0;
    this.levels.beginCommand();
    this._state = state;
    ev.marketState(++this._seq, state);
    if (state !== State.CLOSE) return;
    const levels = this.levels;
    for (let side = 0; side < 2; side++)
      while (levels.best[side] !== NIL) {
        const o = levels.head[levels.best[side]];
        this.emitGone(Kind.CANCELED, o, Reason.MARKET_CLOSED);
        this.removeOrder(o);
      }
  }

  /** New per-side caps; they bind orders from now on and never cancel anything. */
  setOiCaps(maxLongOi: number, maxShortOi: number): void {
    this.maxLongOi = maxLongOi;
    this.maxShortOi = maxShortOi;
  }

  // ------------------------------------------------------------------ snapshot

  /** The whole state in one compact buffer (format in snapshot-codec.ts). */
  snapshot(): Uint8Array {
    return encodeSnapshot(
      {
        seq: this._seq,
        state: this._state,
        maxLongOi: this.maxLongOi,
        maxShortOi: this.maxShortOi,
        longOi: this._longOi,
        shortOi: this._shortOi,
        maxOrderQty: this.maxOrderQty,
        maxPrice: this.maxPrice,
      },
      this.orders,
      this.users,
      this.levels,
    );
  }

  /** The book a snapshot was taken of: same orders in the same priority, positions, OI and seq. */
  static restore(bytes: Uint8Array): OrderBook {
    const snap = openSnapshot(bytes);
    const h = snap.header;
    const book = new OrderBook({
      state: h.state,
      maxLongOi: h.maxLongOi,
      maxShortOi: h.maxShortOi,
      maxOrderQty: h.maxOrderQty,
      maxPrice: h.maxPrice,
      initialCapacity: snap.orders,
    });
    book._seq = h.seq;
    book._longOi = h.longOi;
    book._shortOi = h.shortOi;
    loadSnapshot(snap, book.orders, book.users, book.levels);
    return book;
  }

  private validQty(q: number): boolean {
    return Number.isInteger(q) && q > 0 && q <= this.maxOrderQty;
  }

  private validPrice(p: number): boolean {
    return Number.isInteger(p) && p > 0 && p <= this.maxPrice;
  }
}
