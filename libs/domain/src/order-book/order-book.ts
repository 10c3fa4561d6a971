import { BookEventBuffer } from './events';
import { OrderPool, Slot, UserPool } from './order-pool';
import { PriceLevels } from './price-levels';
import { encodeSnapshot, loadSnapshot, openSnapshot } from './snapshot-codec';
import {
  BookLevel,
  BookEventFlag,
  BookEventKind,
  BookMarketState,
  NewBookOrder,
  OrderBookConfig,
  BookOrderType,
  BookReason,
  RestingBookOrder,
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
 * Layout, for speed and no garbage: orders, levels and users live in struct-of-arrays pools indexed
 * by slot. Each level is an intrusive doubly-linked FIFO of orders (cancel and fill O(1) whatever
 * its depth); levels of a side are a doubly-linked list best -> worst (matching walks it) indexed by
 * a treap (insert/remove O(log n), O(1) expected near the top thanks to the finger walk from the best
 * level). Each user has an intrusive list of its orders (cancel-all, reduce-only upkeep).
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
export class OrderBook {
  /** Events of the last command. */
  readonly events = new BookEventBuffer();

  private _state: BookMarketState;
  private _seq = 0;
  private maxLongOi: number;
  private maxShortOi: number;
  private readonly maxOrderQty: number;
  private readonly maxPrice: number;
  private _longOi = 0;
  private _shortOi = 0;

  private readonly orders: OrderPool;
  private readonly users = new UserPool();
  private readonly levels: PriceLevels;

  /** Marks users already copied into the FOK dry run's scratch columns. */
  private stamp = 0;
  // treap search results
  private foundPred = NIL;
  private foundSucc = NIL;

  constructor(config: OrderBookConfig = {}) {
    this._state = config.state ?? State.TRADING;
    this.maxLongOi = config.maxLongOi ?? Number.MAX_SAFE_INTEGER;
    this.maxShortOi = config.maxShortOi ?? Number.MAX_SAFE_INTEGER;
    this.maxOrderQty = config.maxOrderQty ?? 2 ** 40;
    this.maxPrice = config.maxPrice ?? 2 ** 48;
    const cap = Math.max(16, config.initialCapacity ?? 1024);
    this.orders = new OrderPool(cap);
    this.levels = new PriceLevels(Math.max(16, cap >> 2));
  }

  // ------------------------------------------------------------------ queries

  get state(): BookMarketState {
    return this._state;
  }
  /** Sequence number of the last event emitted. */
  get seq(): number {
    return this._seq;
  }
  get longOi(): number {
    return this._longOi;
  }
  get shortOi(): number {
    return this._shortOi;
  }
  get restingOrders(): number {
    return this.orders.count;
  }
  levelCount(side: BookSide): number {
    return this.levels.sideCount[side];
  }
  /** Best price of a side in ticks, or 0 when the side is empty. */
  bestPrice(side: BookSide): number {
    const l = this.levels.best[side];
    return l === NIL ? 0 : this.levels.price[l];
  }
  /** Quantity resting at the best price of a side, or 0. */
  bestQty(side: BookSide): number {
    const l = this.levels.best[side];
    return l === NIL ? 0 : this.levels.qty[l];
  }
  position(user: number): number {
    const u = this.users.lookup(user);
    return u === NIL ? 0 : this.users.pos[u];
  }
  /** Users with a position, and their signed size in lots. */
  positions(): Map<number, number> {
    const out = new Map<number, number>();
    for (let u = 0; u < this.users.count; u++)
      if (this.users.pos[u] !== 0) out.set(this.users.id[u], this.users.pos[u]);
    return out;
  }
  order(orderId: number): RestingBookOrder | undefined {
    const o = this.orders.ids.get(orderId);
    return o === NIL ? undefined : this.describe(o);
  }
  orderIdOf(user: number, clientOrderId: string): number | undefined {
    const u = this.users.lookup(user);
    const o = u === NIL ? undefined : this.users.cids[u]?.get(clientOrderId);
    return o === undefined ? undefined : this.orders.id[o];
  }
  /** A user's open orders, oldest priority first. */
  openOrders(user: number): RestingBookOrder[] {
    const out: RestingBookOrder[] = [];
    const u = this.users.lookup(user);
    if (u === NIL) return out;
    for (let o = this.users.head[u]; o !== NIL; o = this.orders.uNext[o]) out.push(this.describe(o));
    return out;
  }
  /** Resting orders of a side in priority order (best price first, FIFO within a price). */
  ordersOf(side: BookSide): RestingBookOrder[] {
    const out: RestingBookOrder[] = [];
    for (let l = this.levels.best[side]; l !== NIL; l = this.levels.next[l])
      for (let o = this.levels.head[l]; o !== NIL; o = this.orders.next[o]) out.push(this.describe(o));
    return out;
  }
  /** Aggregated levels of a side, best first. */
  depth(side: BookSide, maxLevels = Number.MAX_SAFE_INTEGER): BookLevel[] {
    const out: BookLevel[] = [];
    for (let l = this.levels.best[side]; l !== NIL && out.length < maxLevels; l = this.levels.next[l])
      out.push({ price: this.levels.price[l], quantity: this.levels.qty[l], orders: this.levels.count[l] });
    return out;
  }

  private describe(o: number): RestingBookOrder {
    const f = this.orders.flags[o];
    const r: RestingBookOrder = {
      orderId: this.orders.id[o],
      user: this.users.id[this.orders.user[o]],
      side: (f & F_SELL) as BookSide,
      price: this.orders.price[o],
      quantity: this.orders.qty[o],
      reduceOnly: (f & F_RO) !== 0,
      postOnly: (f & F_POST) !== 0,
      stp: ((f >> STP_SHIFT) & 3) as BookStpMode,
    };
    const cid = this.orders.cid[o];
    if (cid !== undefined) r.clientOrderId = cid;
    return r;
  }

  // ------------------------------------------------------------------ commands

  /** New order. Events: REJECTED, or ACCEPTED then FILLs and possibly one EXPIRED. */
  place(o: NewBookOrder): void {
    const ev = this.events;
    ev.count = 0;
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
    const u = this.users.intern(userId);
    const cid = o.clientOrderId;
    if (cid !== undefined) {
      const m = this.users.cids[u];
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
    const pos = this.users.pos[u];
    const closable = side === BUY ? (pos < 0 ? -pos : 0) : pos > 0 ? pos : 0;
    if (o.reduceOnly) {
      flags |= F_RO;
      const room = closable - this.users.ro[2 * u + side];
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
    const u = this.users.lookup(user);
    if (u === NIL) return 0;
    let n = 0;
    for (let o = this.users.head[u]; o !== NIL; o = this.users.head[u]) {
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
    const ev = this.events;
    ev.count = 0;
    const o = this.orders.ids.get(orderId);
    let reason: number = Reason.NONE;
    if (this._state !== State.TRADING) reason = Reason.MARKET_NOT_TRADING;
    else if (o === NIL || this.users.id[this.orders.user[o]] !== user) reason = Reason.UNKNOWN_ORDER;
    else if (!this.validQty(quantity)) reason = Reason.INVALID_QUANTITY;
    else if (!this.validPrice(price)) reason = Reason.INVALID_PRICE;
    if (reason !== Reason.NONE) {
      ev.order(Kind.AMEND_REJECTED, ++this._seq, reason, 0, orderId, user, 0, price, quantity, 0);
      return false;
    }
    const u = this.orders.user[o];
    const flags = this.orders.flags[o];
    const side = flags & F_SELL;
    const oldPrice = this.orders.price[o];
    const oldQty = this.orders.qty[o];
    const pos = this.users.pos[u];
    const closable = side === BUY ? (pos < 0 ? -pos : 0) : pos > 0 ? pos : 0;
    let qty = quantity;
    if (flags & F_RO) {
      const room = closable - (this.users.ro[2 * u + side] - oldQty);
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
        this.orders.qty[o] = qty;
        this.levels.qty[this.orders.level[o]] -= d;
        if (flags & F_RO) this.users.ro[2 * u + side] -= d;
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
      const l = this.orders.level[o];
      this.detach(o);
      this.attach(o, this.levels.count[l] === 0 ? this.levels.levelFor(side, price) : l, price, qty);
      return true;
    }
    // Another price: the order keeps its slot and id; off the book, it trades like a new order
    // with this id when it crosses, then rests with what is left.
    if (!this.crosses(side, price)) {
      // Nothing trades: look for the new level from the old one (moves are usually small).
      const l = this.orders.level[o];
      const hint =
        this.levels.count[l] > 1
          ? l
          : this.levels.prev[l] !== NIL
            ? this.levels.prev[l]
            : this.levels.next[l];
      this.detach(o);
      this.attach(
        o,
        hint === NIL ? this.levels.levelFor(side, price) : this.levels.levelNear(side, price, hint),
        price,
        qty,
      );
      return true;
    }
    this.detach(o);
    const left = this.match(orderId, u, side, false, price, qty, flags);
    if (left > 0) this.attach(o, this.levels.levelFor(side, price), price, left);
    else this.release(o);
    return true;
  }

  /** TRADING, HALT (only cancels pass) or CLOSE (delisted: every open order is canceled). */
  setState(state: BookMarketState): void {
    const ev = this.events;
    ev.count = 0;
    this._state = state;
    ev.marketState(++this._seq, state);
    if (state !== State.CLOSE) return;
    for (let side = 0; side < 2; side++)
      while (this.levels.best[side] !== NIL) {
        const o = this.levels.head[this.levels.best[side]];
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

  // ------------------------------------------------------------------ matching

  /** Trades `qty` against the opposite side; returns what is left (0 also when STP expired it). */
  private match(
    id: number,
    u: number,
    side: number,
    isMarket: boolean,
    limit: number,
    qty: number,
    flags: number,
  ): number {
    const ev = this.events;
    const opp = side ^ 1;
    const stp = (flags >> STP_SHIFT) & 3;
    const userId = this.users.id[u];
    const uPos = this.users.pos;
    let left = qty;
    while (left > 0) {
      const lvl = this.levels.best[opp];
      if (lvl === NIL) break;
      const px = this.levels.price[lvl];
      if (!isMarket && (side === BUY ? px > limit : px < limit)) break;
      const m = this.levels.head[lvl];
      const mu = this.orders.user[m];
      if (mu === u && stp !== Stp.NONE) {
        if (stp !== Stp.EXPIRE_TAKER) {
          this.emitGone(Kind.EXPIRED, m, Reason.SELF_TRADE);
          this.removeOrder(m);
        }
        if (stp !== Stp.EXPIRE_MAKER) {
          ev.order(Kind.EXPIRED, ++this._seq, Reason.SELF_TRADE, 0, id, userId, side, limit, left, 0);
          return 0;
        }
        continue;
      }
      const mq = this.orders.qty[m];
      const q = left < mq ? left : mq;
      // Taker leg first, then maker leg: a self-trade (STP NONE) nets to no change.
      let p = uPos[u];
      let tClose: number;
      if (side === BUY) {
        tClose = p < 0 ? (q < -p ? q : -p) : 0;
        uPos[u] = p + q;
        this._shortOi -= tClose;
        this._longOi += q - tClose;
      } else {
        tClose = p > 0 ? (q < p ? q : p) : 0;
        uPos[u] = p - q;
        this._longOi -= tClose;
        this._shortOi += q - tClose;
      }
      p = uPos[mu];
      let mClose: number;
      if (opp === BUY) {
        mClose = p < 0 ? (q < -p ? q : -p) : 0;
        uPos[mu] = p + q;
        this._shortOi -= mClose;
        this._longOi += q - mClose;
      } else {
        mClose = p > 0 ? (q < p ? q : p) : 0;
        uPos[mu] = p - q;
        this._longOi -= mClose;
        this._shortOi += q - mClose;
      }
      left -= q;
      const mLeft = mq - q;
      this.levels.qty[lvl] -= q;
      if (this.orders.flags[m] & F_RO) this.users.ro[2 * mu + opp] -= q;
      ev.fill(
        ++this._seq,
        id,
        userId,
        side,
        px,
        q,
        left,
        this.orders.id[m],
        this.users.id[mu],
        mLeft,
        q - tClose,
        tClose,
        q - mClose,
        mClose,
      );
      if (mLeft === 0) {
        this.orders.qty[m] = 0;
        this.removeOrder(m);
      } else this.orders.qty[m] = mLeft;
      if (this.users.ro[2 * u] + this.users.ro[2 * u + 1] > 0) this.trimReduceOnly(u);
      if (mu !== u && this.users.ro[2 * mu] + this.users.ro[2 * mu + 1] > 0) this.trimReduceOnly(mu);
    }
    return left;
  }

  /**
   * Would a FOK order fill completely? A dry run of match(): self-trade prevention, and the
   * reduce-only trims that a maker's earlier fills in this same match would cause (they shrink that
   * maker's worst-priority reduce-only orders first, so the best remaining one keeps
   * min(its size, what is left of the user's reduce-only quantity)).
   */
  private fillable(
    u: number,
    side: number,
    isMarket: boolean,
    limit: number,
    qty: number,
    stp: number,
  ): boolean {
    const opp = side ^ 1;
    let need = qty;
    const simple = stp === Stp.NONE || this.users.cnt[2 * u + opp] === 0;
    if (simple && this.orders.reduceOnly[opp] === 0) {
      // Nothing can vanish mid-match: level totals suffice.
      for (let l = this.levels.best[opp]; l !== NIL; l = this.levels.next[l]) {
        const px = this.levels.price[l];
        if (!isMarket && (side === BUY ? px > limit : px < limit)) return false;
        need -= this.levels.qty[l];
        if (need <= 0) return true;
      }
      return false;
    }
    const stamp = ++this.stamp;
    for (let l = this.levels.best[opp]; l !== NIL; l = this.levels.next[l]) {
      const px = this.levels.price[l];
      if (!isMarket && (side === BUY ? px > limit : px < limit)) return false;
      for (let o = this.levels.head[l]; o !== NIL; o = this.orders.next[o]) {
        const mu = this.orders.user[o];
        if (mu === u) {
          if (!simple) {
            if (stp === Stp.EXPIRE_MAKER) continue;
            return false;
          }
          need -= this.orders.qty[o];
        } else if (this.users.ro[2 * mu + opp] === 0) need -= this.orders.qty[o];
        else {
          if (this.users.simStamp[mu] !== stamp) {
            this.users.simStamp[mu] = stamp;
            const p = this.users.pos[mu];
            this.users.simClose[mu] = opp === BUY ? -p : p;
            this.users.simRo[mu] = this.users.ro[2 * mu + opp];
          }
          let take = this.orders.qty[o];
          if (this.orders.flags[o] & F_RO) {
            if (take > this.users.simRo[mu]) take = this.users.simRo[mu];
            if (take > need) take = need;
            this.users.simRo[mu] -= take;
            this.users.simClose[mu] -= take;
          } else {
            if (take > need) take = need;
            const c = (this.users.simClose[mu] -= take);
            if (this.users.simRo[mu] > c) this.users.simRo[mu] = c > 0 ? c : 0;
          }
          need -= take;
        }
        if (need <= 0) return true;
      }
    }
    return false;
  }

  /**
   * Restores "resting reduce-only quantity of a side <= the position it can close" for a user after
   * their position moved: shrinks or cancels reduce-only orders, worst priority first.
   */
  private trimReduceOnly(u: number): void {
    const pos = this.users.pos[u];
    for (let s = 0; s < 2; s++) {
      const allowed = s === BUY ? (pos < 0 ? -pos : 0) : pos > 0 ? pos : 0;
      while (this.users.ro[2 * u + s] > allowed) {
        const excess = this.users.ro[2 * u + s] - allowed;
        let w = NIL;
        for (let o = this.users.head[u]; o !== NIL; o = this.orders.uNext[o]) {
          const f = this.orders.flags[o];
          if ((f & F_RO) === 0 || (f & F_SELL) !== s) continue;
          if (w === NIL || this.worse(s, o, w)) w = o;
        }
        const q = this.orders.qty[w];
        if (q <= excess) {
          this.emitGone(Kind.CANCELED, w, Reason.REDUCE_ONLY_TRIM);
          this.removeOrder(w);
        } else {
          this.orders.qty[w] = q - excess;
          this.levels.qty[this.orders.level[w]] -= excess;
          this.users.ro[2 * u + s] -= excess;
          this.events.order(
            Kind.AMENDED,
            ++this._seq,
            Reason.REDUCE_ONLY_TRIM,
            Flag.KEPT_PRIORITY,
            this.orders.id[w],
            this.users.id[u],
            s,
            this.orders.price[w],
            q - excess,
            q - excess,
          );
        }
      }
    }
  }

  /** Is resting order a behind resting order b (same side)? */
  private worse(side: number, a: number, b: number): boolean {
    const pa = this.orders.price[a];
    const pb = this.orders.price[b];
    if (pa !== pb) return side === BUY ? pa < pb : pa > pb;
    return this.orders.time[a] > this.orders.time[b];
  }

  private crosses(side: number, price: number): boolean {
    const l = this.levels.best[side ^ 1];
    if (l === NIL) return false;
    return side === BUY ? this.levels.price[l] <= price : this.levels.price[l] >= price;
  }

  private exceedsOi(open: number): boolean {
    return this._longOi + open > this.maxLongOi || this._shortOi + open > this.maxShortOi;
  }

  private validQty(q: number): boolean {
    return Number.isInteger(q) && q > 0 && q <= this.maxOrderQty;
  }

  private validPrice(p: number): boolean {
    return Number.isInteger(p) && p > 0 && p <= this.maxPrice;
  }

  private emitGone(kind: number, o: number, reason: number): void {
    const f = this.orders.flags[o];
    this.events.order(
      kind,
      ++this._seq,
      reason,
      0,
      this.orders.id[o],
      this.users.id[this.orders.user[o]],
      f & F_SELL,
      this.orders.price[o],
      this.orders.qty[o],
      0,
    );
  }

  // ------------------------------------------------------------------ orders

  private rest(
    id: number,
    u: number,
    side: number,
    price: number,
    qty: number,
    flags: number,
    cid: string | undefined,
  ): void {
    const o = this.orders.alloc();
    this.orders.id[o] = id;
    this.orders.user[o] = u;
    this.orders.flags[o] = flags;
    this.orders.ids.set(id, o);
    if (cid !== undefined) {
      this.orders.cid[o] = cid;
      let m = this.users.cids[u];
      if (m === undefined) this.users.cids[u] = m = new Map();
      m.set(cid, o);
    }
    this.orders.count++;
    this.attach(o, this.levels.levelFor(side, price), price, qty);
  }

  /** Puts a registered order at the back of level l and of its user's list. */
  private attach(o: number, l: number, price: number, qty: number): void {
    const u = this.orders.user[o];
    const f = this.orders.flags[o];
    const s = f & F_SELL;
    this.orders.price[o] = price;
    this.orders.qty[o] = qty;
    this.orders.time[o] = ++this.orders.clock;
    this.orders.appendToLevel(o, l, this.levels);
    this.levels.qty[l] += qty;
    this.levels.count[l]++;
    this.orders.appendToUser(o, u, this.users);
    this.users.cnt[2 * u + s]++;
    if (f & F_RO) {
      this.users.ro[2 * u + s] += qty;
      this.orders.reduceOnly[s]++;
    }
  }

  /** Takes an order off its level (dropping the level if empty) and its user's list. */
  private detach(o: number): void {
    const l = this.orders.level[o];
    const q = this.orders.qty[o];
    const u = this.orders.user[o];
    const f = this.orders.flags[o];
    const s = f & F_SELL;
    this.orders.unlinkFromLevel(o, l, this.levels);
    this.levels.qty[l] -= q;
    if (--this.levels.count[l] === 0) this.levels.remove(l);
    this.orders.unlinkFromUser(o, u, this.users);
    this.users.cnt[2 * u + s]--;
    if (f & F_RO) {
      this.users.ro[2 * u + s] -= q;
      this.orders.reduceOnly[s]--;
    }
  }

  /** Forgets a detached order: id, client id, slot. */
  private release(o: number): void {
    this.orders.ids.delete(this.orders.id[o]);
    const cid = this.orders.cid[o];
    if (cid !== undefined) {
      this.users.cids[this.orders.user[o]]?.delete(cid);
      this.orders.cid[o] = undefined;
    }
    this.orders.free(o);
    this.orders.count--;
  }

  private removeOrder(o: number): void {
    this.detach(o);
    this.release(o);
  }
}
