import type { BookLevelChangeLog } from './level-changes';
import { OrderPool, Slot, UserPool } from './order-pool';
import { PriceLevels } from './price-levels';
import { BookLevel, BookSide, BookStpMode, RestingBookOrder } from './types';

const { NIL, F_SELL, F_RO, F_POST, STP_SHIFT } = Slot;

/**
 * What rests on a book: orders, users and price levels (pools of typed arrays, no garbage per
 * operation), the lists that tie them together, and the read-only queries. The bottom layer of
 * OrderBook (RestingOrders <- Matcher <- OrderBook): a class chain rather than objects calling each
 * other, so the hot path pays no extra dispatch for the split.
 */
export abstract class RestingOrders {
  protected readonly orders: OrderPool;
  protected readonly users = new UserPool();
  protected readonly levels: PriceLevels;

  protected constructor(initialCapacity: number | undefined) {
    const cap = Math.max(16, initialCapacity ?? 1024);
    this.orders = new OrderPool(cap);
    this.levels = new PriceLevels(Math.max(16, cap >> 2));
  }

  // ------------------------------------------------------------------ queries

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
    const { id, pos, count } = this.users;
    const out = new Map<number, number>();
    for (let u = 0; u < count; u++) if (pos[u] !== 0) out.set(id[u], pos[u]);
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
    const { levels, orders } = this;
    const out: RestingBookOrder[] = [];
    for (let l = levels.best[side]; l !== NIL; l = levels.next[l])
      for (let o = levels.head[l]; o !== NIL; o = orders.next[o]) out.push(this.describe(o));
    return out;
  }
  /** Resting quantity at a price of a side, 0 when no order rests there. */
  levelQty(side: BookSide, price: number): number {
    return this.levels.levelQty(side, price);
  }
  /** The levels the last command changed, net (see LevelChanges). */
  get levelChanges(): BookLevelChangeLog {
    return this.levels.changes;
  }
  /** Aggregated levels of a side, best first. */
  depth(side: BookSide, maxLevels = Number.MAX_SAFE_INTEGER): BookLevel[] {
    const levels = this.levels;
    const out: BookLevel[] = [];
    for (let l = levels.best[side]; l !== NIL && out.length < maxLevels; l = levels.next[l])
      out.push({ price: levels.price[l], quantity: levels.qty[l], orders: levels.count[l] });
    return out;
  }

  private describe(o: number): RestingBookOrder {
    const orders = this.orders;
    const f = orders.flags[o];
    const r: RestingBookOrder = {
      orderId: orders.id[o],
      user: this.users.id[orders.user[o]],
      side: (f & F_SELL) as BookSide,
      price: orders.price[o],
      quantity: orders.qty[o],
      reduceOnly: (f & F_RO) !== 0,
      postOnly: (f & F_POST) !== 0,
      stp: ((f >> STP_SHIFT) & 3) as BookStpMode,
    };
    const cid = orders.cid[o];
    if (cid !== undefined) r.clientOrderId = cid;
    return r;
  }

  // ------------------------------------------------------------------ resting orders

  /** Registers a new order (id, client id) and puts it at the back of its price level. */
  protected rest(
    id: number,
    u: number,
    side: number,
    price: number,
    qty: number,
    flags: number,
    cid: string | undefined,
  ): void {
    const orders = this.orders;
    const o = orders.alloc();
    orders.id[o] = id;
    orders.user[o] = u;
    orders.flags[o] = flags;
    orders.ids.set(id, o);
    if (cid !== undefined) {
      orders.cid[o] = cid;
      let m = this.users.cids[u];
      if (m === undefined) this.users.cids[u] = m = new Map();
      m.set(cid, o);
    }
    orders.count++;
    this.attach(o, this.levels.levelFor(side, price), price, qty);
  }

  /** Puts a registered order at the back of level l and of its user's list. */
  protected attach(o: number, l: number, price: number, qty: number): void {
    const { orders, levels, users } = this;
    const u = orders.user[o];
    const f = orders.flags[o];
    const s = f & F_SELL;
    orders.price[o] = price;
    orders.qty[o] = qty;
    orders.time[o] = ++orders.clock;
    orders.appendToLevel(o, l, levels);
    levels.touch(l);
    levels.qty[l] += qty;
    levels.count[l]++;
    orders.appendToUser(o, u, users);
    users.cnt[2 * u + s]++;
    if (f & F_RO) {
      users.ro[2 * u + s] += qty;
      orders.reduceOnly[s]++;
    }
  }

  /** Takes an order off its level (dropping the level if empty) and its user's list. */
  protected detach(o: number): void {
    const { orders, levels, users } = this;
    const l = orders.level[o];
    const q = orders.qty[o];
    const u = orders.user[o];
    const f = orders.flags[o];
    const s = f & F_SELL;
    orders.unlinkFromLevel(o, l, levels);
    levels.touch(l);
    levels.qty[l] -= q;
    if (--levels.count[l] === 0) levels.remove(l);
    orders.unlinkFromUser(o, u, users);
    users.cnt[2 * u + s]--;
    if (f & F_RO) {
      users.ro[2 * u + s] -= q;
      orders.reduceOnly[s]--;
    }
  }

  /** Forgets a detached order: id, client id, slot. */
  protected release(o: number): void {
    const orders = this.orders;
    orders.ids.delete(orders.id[o]);
    const cid = orders.cid[o];
    if (cid !== undefined) {
      this.users.cids[orders.user[o]]?.delete(cid);
      orders.cid[o] = undefined;
    }
    orders.free(o);
    orders.count--;
  }

  protected removeOrder(o: number): void {
    this.detach(o);
    this.release(o);
  }
}
