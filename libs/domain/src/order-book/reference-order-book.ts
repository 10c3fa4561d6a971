// Why this module is long: the reference book must cover the whole OrderBookApi in one readable place (naive on purpose), so the property test compares against one obviously-correct model.
import { BookEvent } from './events';
import type { BookLevelChange, BookLevelChangeLog } from './level-changes';
import { BookEventLog, OrderBookApi } from './order-book-api';
import {
  BookLevel,
  BookMarketState,
  BookReason,
  BookRejectReason,
  BookSide,
  BookStpMode,
  NewBookOrder,
  OrderBookConfig,
  RestingBookOrder,
} from './types';

// Over ~400 lines on purpose: the whole naive model in one file, to be read top to bottom.

/*
 * The order book written to be obviously correct rather than fast: one plain array of orders,
 * sorted naively on every use, positions in a Map, FOK by clone-run-rollback. The property test
 * (order-book.property.spec.ts) requires OrderBook to emit the same events and hold the same book,
 * positions and open interest on random command streams. Not for production: O(n log n) per look.
 */

const BUY = 0;
const GTX = 3;
const FOK = 2;
const IOC = 1;
const STP_NONE = 3;

type Side = BookSide;

interface ROrder {
  id: number;
  user: number;
  side: Side;
  price: number;
  qty: number;
  ro: boolean;
  post: boolean;
  stp: number;
  cid?: string;
  /** Priority: the clock when the order last joined the back of its price. */
  time: number;
}

/** The taker's side of a match: a new order, or an amended one that crosses. */
type Taker = Omit<ROrder, 'price' | 'qty' | 'time'>;

type Reason = keyof typeof BookReason;

class BookEventList implements BookEventLog {
  private items: BookEvent[] = [];
  get count(): number {
    return this.items.length;
  }
  get(i: number): BookEvent {
    if (i < 0 || i >= this.items.length) throw new RangeError(`event ${i} of ${this.items.length}`);
    return this.items[i];
  }
  toArray(): BookEvent[] {
    return [...this.items];
  }
  push(e: BookEvent): void {
    this.items.push(e);
  }
  clear(): void {
    this.items = [];
  }
  truncate(n: number): void {
    this.items.length = n;
  }
}

class BookLevelChangeList implements BookLevelChangeLog {
  constructor(private readonly items: BookLevelChange[]) {}
  get count(): number {
    return this.items.length;
  }
  side(i: number): BookSide {
    return this.at(i).side;
  }
  price(i: number): number {
    return this.at(i).price;
  }
  quantity(i: number): number {
    return this.at(i).quantity;
  }
  toArray(): BookLevelChange[] {
    return this.items.map((c) => ({ ...c }));
  }
  private at(i: number): BookLevelChange {
    if (i < 0 || i >= this.items.length) throw new RangeError(`level change ${i} of ${this.items.length}`);
    return this.items[i];
  }
}

export class ReferenceOrderBook implements OrderBookApi {
  readonly events = new BookEventList();
  /** Both sides' depth when the last command began: levelChanges is the diff against it. */
  private depthBefore: BookLevel[][] = [[], []];
  private _state: BookMarketState;
  private _seq = 0;
  private clock = 0;
  private orders: ROrder[] = [];
  private pos = new Map<number, number>();
  private _longOi = 0;
  private _shortOi = 0;
  private maxLong: number;
  private maxShort: number;
  private readonly maxQty: number;
  private readonly maxPrice: number;

  constructor(config: OrderBookConfig = {}) {
    this._state = config.state ?? 0;
    this.maxLong = config.maxLongOi ?? Number.MAX_SAFE_INTEGER;
    this.maxShort = config.maxShortOi ?? Number.MAX_SAFE_INTEGER;
    this.maxQty = config.maxOrderQty ?? 2 ** 40;
    this.maxPrice = config.maxPrice ?? 2 ** 48;
  }

  // ------------------------------------------------------------------ queries

  get state(): BookMarketState {
    return this._state;
  }
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
    return this.orders.length;
  }
  levelCount(side: BookSide): number {
    return this.depth(side).length;
  }
  bestPrice(side: BookSide): number {
    return this.sorted(side)[0]?.price ?? 0;
  }
  bestQty(side: BookSide): number {
    return this.depth(side, 1)[0]?.quantity ?? 0;
  }
  position(user: number): number {
    return this.pos.get(user) ?? 0;
  }
  positions(): Map<number, number> {
    return new Map([...this.pos].filter(([, p]) => p !== 0));
  }
  order(orderId: number): RestingBookOrder | undefined {
    const o = this.orders.find((x) => x.id === orderId);
    return o && toResting(o);
  }
  orderIdOf(user: number, clientOrderId: string): number | undefined {
    return this.orders.find((x) => x.user === user && x.cid === clientOrderId)?.id;
  }
  openOrders(user: number): RestingBookOrder[] {
    return this.orders
      .filter((o) => o.user === user)
      .sort((a, b) => a.time - b.time)
      .map(toResting);
  }
  ordersOf(side: BookSide): RestingBookOrder[] {
    return this.sorted(side).map(toResting);
  }
  levelQty(side: BookSide, price: number): number {
    return this.orders.filter((o) => o.side === side && o.price === price).reduce((q, o) => q + o.qty, 0);
  }
  /** Every price of either side, before the command or now, whose total differs. */
  get levelChanges(): BookLevelChangeLog {
    const out: BookLevelChange[] = [];
    for (const side of [0, 1] as const) {
      const before = new Map(this.depthBefore[side].map((l) => [l.price, l.quantity]));
      const now = new Map(this.depth(side).map((l) => [l.price, l.quantity]));
      const prices = [...new Set([...before.keys(), ...now.keys()])];
      prices.sort((a, b) => (side === BUY ? b - a : a - b));
      for (const price of prices) {
        const quantity = now.get(price) ?? 0;
        if (quantity !== (before.get(price) ?? 0)) out.push({ side, price, quantity });
      }
    }
    return new BookLevelChangeList(out);
  }
  depth(side: BookSide, maxLevels = Number.MAX_SAFE_INTEGER): BookLevel[] {
    const out: BookLevel[] = [];
    for (const o of this.sorted(side)) {
      const last = out[out.length - 1];
      if (last?.price === o.price) {
        last.quantity += o.qty;
        last.orders++;
      } else out.push({ price: o.price, quantity: o.qty, orders: 1 });
    }
    return out.slice(0, maxLevels);
  }

  // ------------------------------------------------------------------ commands

  place(o: NewBookOrder): void {
    this.begin();
    const isMarket = o.type === 1;
    const price = isMarket ? 0 : o.price;
    const stp = o.stp ?? 0;
    let reason: BookRejectReason | undefined;
    let qty = o.quantity;
    if (this._state !== 0) reason = 'MARKET_NOT_TRADING';
    else if (
      ![0, 1].includes(o.side) ||
      ![0, 1].includes(o.type) ||
      ![0, 1, 2, 3].includes(o.timeInForce) ||
      ![0, 1, 2, 3].includes(stp) ||
      (isMarket && o.timeInForce === GTX) ||
      !Number.isSafeInteger(o.orderId) ||
      !Number.isSafeInteger(o.user)
    )
      reason = 'INVALID_ORDER';
    else if (!this.validQty(o.quantity)) reason = 'INVALID_QUANTITY';
    else if (!isMarket && !this.validPrice(price)) reason = 'INVALID_PRICE';
    else if (this.orders.some((x) => x.id === o.orderId)) reason = 'DUPLICATE_ORDER_ID';
    else if (
      o.clientOrderId !== undefined &&
      this.orders.some((x) => x.user === o.user && x.cid === o.clientOrderId)
    )
      reason = 'DUPLICATE_CLIENT_ORDER_ID';
    else {
      const closable = this.closable(o.user, o.side);
      if (o.reduceOnly) {
        const room = closable - this.roSum(o.user, o.side);
        if (room <= 0) reason = 'REDUCE_ONLY_REJECTED';
        else qty = Math.min(qty, room);
      } else if (qty > closable && this.exceedsOi(qty - closable)) reason = 'OI_CAP_EXCEEDED';
      if (!reason && o.timeInForce === GTX && this.crosses(o.side, price)) reason = 'POST_ONLY_WOULD_TAKE';
    }
    if (reason) return this.rejected('REJECTED', o.orderId, o.user, o.side, price, o.quantity, reason);
    this.events.push({
      kind: 'ACCEPTED',
      seq: ++this._seq,
      orderId: o.orderId,
      user: o.user,
      side: o.side,
      price,
      qty,
      capped: qty !== o.quantity,
    });
    const taker: Taker = {
      id: o.orderId,
      user: o.user,
      side: o.side,
      ro: o.reduceOnly === true,
      post: o.timeInForce === GTX,
      stp,
      cid: o.clientOrderId,
    };
    if (o.timeInForce === FOK) {
      const saved = this.save();
      const r = this.match(taker, isMarket, price, qty);
      if (r.filled < qty) {
        this.load(saved);
        this.expired(taker, price, qty, 'FOK_UNFILLABLE');
      }
      return;
    }
    const { left } = this.match(taker, isMarket, price, qty);
    if (left === 0) return;
    if (isMarket || o.timeInForce === IOC)
      return this.expired(taker, price, left, isMarket ? 'NO_LIQUIDITY' : 'IOC_REMAINDER');
    this.orders.push({ ...taker, price, qty: left, time: ++this.clock });
  }

  cancel(user: number, orderId: number): boolean {
    this.begin();
    const o = this.orders.find((x) => x.id === orderId && x.user === user);
    if (!o) {
      this.rejected('CANCEL_REJECTED', orderId, user, 0, 0, 0, 'UNKNOWN_ORDER');
      return false;
    }
    this.gone('CANCELED', o, 'USER_CANCELED');
    return true;
  }

  cancelByClientId(user: number, clientOrderId: string): boolean {
    this.begin();
    const o = this.orders.find((x) => x.cid === clientOrderId && x.user === user);
    if (!o) {
      this.rejected('CANCEL_REJECTED', -1, user, 0, 0, 0, 'UNKNOWN_ORDER');
      return false;
    }
    this.gone('CANCELED', o, 'USER_CANCELED');
    return true;
  }

  cancelAll(user: number): number {
    this.begin();
    const mine = this.orders.filter((x) => x.user === user).sort((a, b) => a.time - b.time);
    for (const o of mine) this.gone('CANCELED', o, 'CANCEL_ALL');
    return mine.length;
  }

  amend(user: number, orderId: number, price: number, quantity: number): boolean {
    this.begin();
    const o = this.orders.find((x) => x.id === orderId);
    let reason: BookRejectReason | undefined;
    if (this._state !== 0) reason = 'MARKET_NOT_TRADING';
    else if (!o || o.user !== user) reason = 'UNKNOWN_ORDER';
    else if (!this.validQty(quantity)) reason = 'INVALID_QUANTITY';
    else if (!this.validPrice(price)) reason = 'INVALID_PRICE';
    if (reason || !o) {
      this.rejected('AMEND_REJECTED', orderId, user, 0, price, quantity, reason ?? 'UNKNOWN_ORDER');
      return false;
    }
    const closable = this.closable(user, o.side);
    let qty = quantity;
    if (o.ro) qty = Math.min(qty, closable - (this.roSum(user, o.side) - o.qty));
    else if ((price !== o.price || qty > o.qty) && qty > closable && this.exceedsOi(qty - closable))
      reason = 'OI_CAP_EXCEEDED';
    if (!reason && price !== o.price && o.post && this.crosses(o.side, price))
      reason = 'POST_ONLY_WOULD_TAKE';
    if (reason) {
      this.rejected('AMEND_REJECTED', orderId, user, o.side, price, quantity, reason);
      return false;
    }
    const kept = price === o.price && qty <= o.qty;
    this.events.push({
      kind: 'AMENDED',
      seq: ++this._seq,
      orderId,
      user,
      side: o.side,
      price,
      qty,
      keptPriority: kept,
      reason: 'AMENDED_BY_USER',
    });
    if (kept) o.qty = qty;
    else if (price === o.price) {
      o.qty = qty;
      o.time = ++this.clock;
    } else {
      this.remove(o);
      const { left } = this.match(o, false, price, qty);
      if (left > 0) this.orders.push({ ...o, price, qty: left, time: ++this.clock });
    }
    return true;
  }

  setState(state: BookMarketState): void {
    this.begin();
    this._state = state;
    this.events.push({
      kind: 'MARKET_STATE',
      seq: ++this._seq,
      state: (['TRADING', 'HALT', 'CLOSE'] as const)[state],
    });
    if (state === 2)
      for (const o of [...this.sorted(0), ...this.sorted(1)]) this.gone('CANCELED', o, 'MARKET_CLOSED');
  }

  setOiCaps(maxLongOi: number, maxShortOi: number): void {
    this.maxLong = maxLongOi;
    this.maxShort = maxShortOi;
  }

  deleverage(
    takerOrderId: number,
    user: number,
    makerOrderId: number,
    counterparty: number,
    lots: number,
    price: number,
  ): number {
    this.begin();
    const ints = [takerOrderId, makerOrderId, lots, price].every((x) => Number.isSafeInteger(x));
    if (!ints || lots <= 0 || price <= 0 || user === counterparty) return 0;
    const pu = this.position(user);
    const pc = this.position(counterparty);
    if (pu === 0 || pc === 0 || Math.sign(pu) === Math.sign(pc)) return 0;
    const q = Math.min(lots, Math.abs(pu), Math.abs(pc));
    const side: Side = pu > 0 ? 1 : 0;
    const tClose = this.fillLeg(user, side, q);
    const mClose = this.fillLeg(counterparty, side === BUY ? 1 : 0, q);
    this.events.push({
      kind: 'FILL',
      seq: ++this._seq,
      price,
      qty: q,
      taker: { orderId: takerOrderId, user, side, close: tClose, open: q - tClose, leaves: 0 },
      maker: {
        orderId: makerOrderId,
        user: counterparty,
        side: side === BUY ? 1 : 0,
        close: mClose,
        open: q - mClose,
        leaves: 0,
      },
    });
    this.trim(user);
    this.trim(counterparty);
    return q;
  }

  // ------------------------------------------------------------------ matching

  private match(t: Taker, isMarket: boolean, limit: number, qty: number): { left: number; filled: number } {
    let left = qty;
    let filled = 0;
    while (left > 0) {
      const m = this.sorted(t.side === BUY ? 1 : 0)[0];
      if (!m) break;
      if (!isMarket && (t.side === BUY ? m.price > limit : m.price < limit)) break;
      if (m.user === t.user && t.stp !== STP_NONE) {
        if (t.stp !== BookStpMode.EXPIRE_TAKER) this.gone('EXPIRED', m, 'SELF_TRADE');
        if (t.stp !== BookStpMode.EXPIRE_MAKER) {
          this.expired(t, limit, left, 'SELF_TRADE');
          return { left: 0, filled };
        }
        continue;
      }
      const q = Math.min(left, m.qty);
      // Maker leg first, as risk settles a fill's copies.
      const mClose = this.fillLeg(m.user, m.side, q);
      const tClose = this.fillLeg(t.user, t.side, q);
      left -= q;
      filled += q;
      m.qty -= q;
      this.events.push({
        kind: 'FILL',
        seq: ++this._seq,
        price: m.price,
        qty: q,
        taker: { orderId: t.id, user: t.user, side: t.side, close: tClose, open: q - tClose, leaves: left },
        maker: { orderId: m.id, user: m.user, side: m.side, close: mClose, open: q - mClose, leaves: m.qty },
      });
      if (m.qty === 0) this.remove(m);
      this.trim(t.user);
      if (m.user !== t.user) this.trim(m.user);
    }
    return { left, filled };
  }

  /** One side of a fill: moves the position and OI; returns the part that closed. */
  private fillLeg(u: number, side: Side, q: number): number {
    const close = Math.min(q, this.closable(u, side));
    this.pos.set(u, this.position(u) + (side === BUY ? q : -q));
    if (side === BUY) {
      this._shortOi -= close;
      this._longOi += q - close;
    } else {
      this._longOi -= close;
      this._shortOi += q - close;
    }
    return close;
  }

  /** Reduce-only orders of a side may not exceed the position they can close: shrink worst first. */
  private trim(u: number): void {
    for (const s of [0, 1] as const) {
      const allowed = this.closable(u, s);
      while (this.roSum(u, s) > allowed) {
        const excess = this.roSum(u, s) - allowed;
        const w = this.orders
          .filter((o) => o.user === u && o.side === s && o.ro)
          .sort((a, b) => (s === BUY ? a.price - b.price : b.price - a.price) || b.time - a.time)[0];
        if (w.qty <= excess) this.gone('CANCELED', w, 'REDUCE_ONLY_TRIM');
        else {
          w.qty -= excess;
          this.events.push({
            kind: 'AMENDED',
            seq: ++this._seq,
            orderId: w.id,
            user: u,
            side: s,
            price: w.price,
            qty: w.qty,
            keptPriority: true,
            reason: 'REDUCE_ONLY_TRIM',
          });
        }
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  /** A side's orders in priority order. */
  private sorted(side: number): ROrder[] {
    return this.orders
      .filter((o) => o.side === side)
      .sort((a, b) => (side === BUY ? b.price - a.price : a.price - b.price) || a.time - b.time);
  }
  private closable(u: number, side: number): number {
    const p = this.position(u);
    return side === BUY ? Math.max(-p, 0) : Math.max(p, 0);
  }
  private roSum(u: number, side: number): number {
    return this.orders.filter((o) => o.user === u && o.side === side && o.ro).reduce((s, o) => s + o.qty, 0);
  }
  private crosses(side: number, price: number): boolean {
    const b = this.sorted(side === BUY ? 1 : 0)[0];
    return b !== undefined && (side === BUY ? b.price <= price : b.price >= price);
  }
  private exceedsOi(open: number): boolean {
    return this._longOi + open > this.maxLong || this._shortOi + open > this.maxShort;
  }
  private validQty(q: number): boolean {
    return Number.isInteger(q) && q > 0 && q <= this.maxQty;
  }
  private validPrice(p: number): boolean {
    return Number.isInteger(p) && p > 0 && p <= this.maxPrice;
  }
  private remove(o: ROrder): void {
    this.orders.splice(this.orders.indexOf(o), 1);
  }
  /** Emits a resting order's end and takes it off the book. */
  private gone(kind: 'CANCELED' | 'EXPIRED', o: ROrder, reason: Reason): void {
    this.events.push({
      kind,
      seq: ++this._seq,
      orderId: o.id,
      user: o.user,
      side: o.side,
      price: o.price,
      qty: o.qty,
      reason,
    });
    this.remove(o);
  }
  /** Emits the end of the taker's remainder (it never rested). */
  private expired(t: Taker, price: number, qty: number, reason: Reason): void {
    this.events.push({
      kind: 'EXPIRED',
      seq: ++this._seq,
      orderId: t.id,
      user: t.user,
      side: t.side,
      price,
      qty,
      reason,
    });
  }
  private rejected(
    kind: 'REJECTED' | 'CANCEL_REJECTED' | 'AMEND_REJECTED',
    orderId: number,
    user: number,
    side: Side,
    price: number,
    qty: number,
    reason: BookRejectReason,
  ): void {
    this.events.push({
      kind,
      seq: ++this._seq,
      orderId,
      user,
      side,
      price,
      qty,
      reason,
    });
  }

  /** Every command starts here: no events yet, and the depth its level changes are measured from. */
  private begin(): void {
    this.events.clear();
    this.depthBefore = [this.depth(0), this.depth(1)];
  }

  private save() {
    return {
      orders: this.orders.map((o) => ({ ...o })),
      pos: new Map(this.pos),
      longOi: this._longOi,
      shortOi: this._shortOi,
      seq: this._seq,
      clock: this.clock,
      events: this.events.count,
    };
  }
  private load(s: ReturnType<ReferenceOrderBook['save']>): void {
    this.orders = s.orders;
    this.pos = s.pos;
    this._longOi = s.longOi;
    this._shortOi = s.shortOi;
    this._seq = s.seq;
    this.clock = s.clock;
    this.events.truncate(s.events);
  }
}

function toResting(o: ROrder): RestingBookOrder {
  const r: RestingBookOrder = {
    orderId: o.id,
    user: o.user,
    side: o.side,
    price: o.price,
    quantity: o.qty,
    reduceOnly: o.ro,
    postOnly: o.post,
    stp: o.stp as BookStpMode,
  };
  if (o.cid !== undefined) r.clientOrderId = o.cid;
  return r;
}
