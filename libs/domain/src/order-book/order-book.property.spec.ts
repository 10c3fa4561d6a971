import fc from 'fast-check';
import { BookEvent } from './events';
import { OrderBook } from './order-book';
import { BookRejectReason, NewBookOrder, RestingBookOrder } from './types';

/*
 * The engine against an obviously-correct reference: plain arrays, sorted naively on every use, FOK
 * by clone-run-rollback. Both must emit the same events (kinds, ids, prices, quantities, open/close
 * splits, reasons, sequence numbers) and hold the same book, positions and open interest after
 * every operation; and the engine's book must satisfy the invariants on its own.
 */

const BUY = 0;
const NONE_STP = 3;
const MAX_QTY = 1000;
const MAX_PRICE = 1_000_000;

interface ROrder {
  id: number;
  user: number;
  side: number;
  price: number;
  qty: number;
  ro: boolean;
  post: boolean;
  stp: number;
  cid?: string;
  time: number;
}

class ReferenceBook {
  state = 0;
  seq = 0;
  clock = 0;
  orders: ROrder[] = [];
  pos = new Map<number, number>();
  longOi = 0;
  shortOi = 0;
  events: BookEvent[] = [];

  constructor(
    private readonly maxLong: number,
    private readonly maxShort: number,
  ) {}

  private p(u: number) {
    return this.pos.get(u) ?? 0;
  }
  private closable(u: number, side: number) {
    const p = this.p(u);
    return side === BUY ? Math.max(-p, 0) : Math.max(p, 0);
  }
  private roSum(u: number, side: number) {
    return this.orders.filter((o) => o.user === u && o.side === side && o.ro).reduce((s, o) => s + o.qty, 0);
  }
  book(side: number): ROrder[] {
    return this.orders
      .filter((o) => o.side === side)
      .sort((a, b) => (side === BUY ? b.price - a.price : a.price - b.price) || a.time - b.time);
  }
  private crosses(side: number, price: number) {
    const b = this.book(side ^ 1)[0];
    return b !== undefined && (side === BUY ? b.price <= price : b.price >= price);
  }
  private exceedsOi(open: number) {
    return this.longOi + open > this.maxLong || this.shortOi + open > this.maxShort;
  }
  private validQty(q: number) {
    return Number.isInteger(q) && q > 0 && q <= MAX_QTY;
  }
  private validPrice(p: number) {
    return Number.isInteger(p) && p > 0 && p <= MAX_PRICE;
  }
  private remove(o: ROrder) {
    this.orders.splice(this.orders.indexOf(o), 1);
  }
  private gone(kind: 'CANCELED' | 'EXPIRED', o: ROrder, reason: string) {
    this.events.push({
      kind,
      seq: ++this.seq,
      orderId: o.id,
      user: o.user,
      side: o.side as 0 | 1,
      price: o.price,
      qty: o.qty,
      reason,
    });
  }
  private rejected(
    kind: 'REJECTED' | 'CANCEL_REJECTED' | 'AMEND_REJECTED',
    orderId: number,
    user: number,
    side: number,
    price: number,
    qty: number,
    reason: BookRejectReason,
  ) {
    this.events.push({
      kind,
      seq: ++this.seq,
      orderId,
      user,
      side: side as 0 | 1,
      price,
      qty,
      reason,
    });
  }

  place(o: NewBookOrder) {
    this.events = [];
    const isMarket = o.type === 1;
    const price = isMarket ? 0 : o.price;
    let reason: BookRejectReason | undefined;
    let qty = o.quantity;
    if (this.state !== 0) reason = 'MARKET_NOT_TRADING';
    else if (isMarket && o.timeInForce === 3) reason = 'INVALID_ORDER';
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
      if (!reason && o.timeInForce === 3 && this.crosses(o.side, price)) reason = 'POST_ONLY_WOULD_TAKE';
    }
    if (reason) return this.rejected('REJECTED', o.orderId, o.user, o.side, price, o.quantity, reason);
    this.events.push({
      kind: 'ACCEPTED',
      seq: ++this.seq,
      orderId: o.orderId,
      user: o.user,
      side: o.side,
      price,
      qty,
      capped: qty !== o.quantity,
    });
    const taker = {
      id: o.orderId,
      user: o.user,
      side: o.side,
      ro: o.reduceOnly === true,
      post: o.timeInForce === 3,
      stp: o.stp ?? 0,
      cid: o.clientOrderId,
    };
    if (o.timeInForce === 2) {
      const saved = this.save();
      const r = this.match(taker, isMarket, price, qty);
      if (r.filled < qty) {
        this.load(saved);
        this.events.push({
          kind: 'EXPIRED',
          seq: ++this.seq,
          orderId: o.orderId,
          user: o.user,
          side: o.side,
          price,
          qty,
          reason: 'FOK_UNFILLABLE',
        });
      }
      return;
    }
    const { left } = this.match(taker, isMarket, price, qty);
    if (left === 0) return;
    if (isMarket || o.timeInForce === 1) {
      this.events.push({
        kind: 'EXPIRED',
        seq: ++this.seq,
        orderId: o.orderId,
        user: o.user,
        side: o.side,
        price,
        qty: left,
        reason: isMarket ? 'NO_LIQUIDITY' : 'IOC_REMAINDER',
      });
      return;
    }
    this.orders.push({ ...taker, price, qty: left, time: ++this.clock });
  }

  private match(
    t: { id: number; user: number; side: number; ro: boolean; post: boolean; stp: number; cid?: string },
    isMarket: boolean,
    limit: number,
    qty: number,
  ): { left: number; filled: number } {
    let left = qty;
    let filled = 0;
    while (left > 0) {
      const m = this.book(t.side ^ 1)[0];
      if (!m) break;
      if (!isMarket && (t.side === BUY ? m.price > limit : m.price < limit)) break;
      if (m.user === t.user && t.stp !== NONE_STP) {
        if (t.stp !== 0) {
          this.gone('EXPIRED', m, 'SELF_TRADE');
          this.remove(m);
        }
        if (t.stp !== 1) {
          this.events.push({
            kind: 'EXPIRED',
            seq: ++this.seq,
            orderId: t.id,
            user: t.user,
            side: t.side as 0 | 1,
            price: limit,
            qty: left,
            reason: 'SELF_TRADE',
          });
          return { left: 0, filled };
        }
        continue;
      }
      const q = Math.min(left, m.qty);
      const leg = (u: number, side: number) => {
        const close = Math.min(q, this.closable(u, side));
        this.pos.set(u, this.p(u) + (side === BUY ? q : -q));
        if (side === BUY) {
          this.shortOi -= close;
          this.longOi += q - close;
        } else {
          this.longOi -= close;
          this.shortOi += q - close;
        }
        return close;
      };
      const tClose = leg(t.user, t.side);
      const mClose = leg(m.user, m.side);
      left -= q;
      filled += q;
      m.qty -= q;
      this.events.push({
        kind: 'FILL',
        seq: ++this.seq,
        price: m.price,
        qty: q,
        taker: {
          orderId: t.id,
          user: t.user,
          side: t.side as 0 | 1,
          close: tClose,
          open: q - tClose,
          leaves: left,
        },
        maker: {
          orderId: m.id,
          user: m.user,
          side: m.side as 0 | 1,
          close: mClose,
          open: q - mClose,
          leaves: m.qty,
        },
      });
      if (m.qty === 0) this.remove(m);
      this.trim(t.user);
      if (m.user !== t.user) this.trim(m.user);
    }
    return { left, filled };
  }

  private trim(u: number) {
    for (const s of [0, 1]) {
      const allowed = this.closable(u, s);
      while (this.roSum(u, s) > allowed) {
        const excess = this.roSum(u, s) - allowed;
        const w = this.orders
          .filter((o) => o.user === u && o.side === s && o.ro)
          .sort((a, b) => (s === BUY ? a.price - b.price : b.price - a.price) || b.time - a.time)[0];
        if (w.qty <= excess) {
          this.gone('CANCELED', w, 'REDUCE_ONLY_TRIM');
          this.remove(w);
        } else {
          w.qty -= excess;
          this.events.push({
            kind: 'AMENDED',
            seq: ++this.seq,
            orderId: w.id,
            user: u,
            side: s as 0 | 1,
            price: w.price,
            qty: w.qty,
            keptPriority: true,
            reason: 'REDUCE_ONLY_TRIM',
          });
        }
      }
    }
  }

  cancel(user: number, id: number) {
    this.events = [];
    const o = this.orders.find((x) => x.id === id && x.user === user);
    if (!o) return this.rejected('CANCEL_REJECTED', id, user, 0, 0, 0, 'UNKNOWN_ORDER');
    this.gone('CANCELED', o, 'USER_CANCELED');
    this.remove(o);
  }

  cancelByCid(user: number, cid: string) {
    this.events = [];
    const o = this.orders.find((x) => x.cid === cid && x.user === user);
    if (!o) return this.rejected('CANCEL_REJECTED', -1, user, 0, 0, 0, 'UNKNOWN_ORDER');
    this.gone('CANCELED', o, 'USER_CANCELED');
    this.remove(o);
  }

  cancelAll(user: number) {
    this.events = [];
    for (const o of this.orders.filter((x) => x.user === user).sort((a, b) => a.time - b.time)) {
      this.gone('CANCELED', o, 'CANCEL_ALL');
      this.remove(o);
    }
  }

  amend(user: number, id: number, price: number, quantity: number) {
    this.events = [];
    const o = this.orders.find((x) => x.id === id);
    let reason: BookRejectReason | undefined;
    if (this.state !== 0) reason = 'MARKET_NOT_TRADING';
    else if (!o || o.user !== user) reason = 'UNKNOWN_ORDER';
    else if (!this.validQty(quantity)) reason = 'INVALID_QUANTITY';
    else if (!this.validPrice(price)) reason = 'INVALID_PRICE';
    if (reason || !o) return this.rejected('AMEND_REJECTED', id, user, 0, price, quantity, reason!);
    const closable = this.closable(user, o.side);
    let qty = quantity;
    if (o.ro) qty = Math.min(qty, closable - (this.roSum(user, o.side) - o.qty));
    else if ((price !== o.price || qty > o.qty) && qty > closable && this.exceedsOi(qty - closable))
      reason = 'OI_CAP_EXCEEDED';
    if (!reason && price !== o.price && o.post && this.crosses(o.side, price))
      reason = 'POST_ONLY_WOULD_TAKE';
    if (reason) return this.rejected('AMEND_REJECTED', id, user, o.side, price, quantity, reason);
    const kept = price === o.price && qty <= o.qty;
    this.events.push({
      kind: 'AMENDED',
      seq: ++this.seq,
      orderId: id,
      user,
      side: o.side as 0 | 1,
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
  }

  setState(state: number) {
    this.events = [];
    this.state = state;
    this.events.push({
      kind: 'MARKET_STATE',
      seq: ++this.seq,
      state: (['TRADING', 'HALT', 'CLOSE'] as const)[state],
    });
    if (state === 2)
      for (const o of [...this.book(0), ...this.book(1)]) {
        this.gone('CANCELED', o, 'MARKET_CLOSED');
        this.remove(o);
      }
  }

  private save() {
    return {
      orders: this.orders.map((o) => ({ ...o })),
      pos: new Map(this.pos),
      longOi: this.longOi,
      shortOi: this.shortOi,
      seq: this.seq,
      clock: this.clock,
      events: this.events.length,
    };
  }
  private load(s: ReturnType<ReferenceBook['save']>) {
    this.orders = s.orders;
    this.pos = s.pos;
    this.longOi = s.longOi;
    this.shortOi = s.shortOi;
    this.seq = s.seq;
    this.clock = s.clock;
    this.events.length = s.events;
  }
}

// ---------------------------------------------------------------- op streams

type Op =
  | { t: 'place'; o: NewBookOrder }
  | { t: 'cancel'; user: number; id: number }
  | { t: 'cancelCid'; user: number; cid: string }
  | { t: 'cancelAll'; user: number }
  | { t: 'amend'; user: number; id: number; price: number; qty: number }
  | { t: 'state'; state: 0 | 1 | 2 };

const user = fc.integer({ min: 1, max: 3 });
const price = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 95, max: 105 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -3, 1.5, MAX_PRICE + 1) },
);
const qty = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 1, max: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, -1, 2.5, MAX_QTY, MAX_QTY + 1, Number.MAX_SAFE_INTEGER, 2 ** 60),
  },
);
const cid = fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined, freq: 3 });
/** Which order an op names: mostly one of the last few ids, sometimes an id never used. */
const ref = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 15 }) },
  { weight: 1, arbitrary: fc.constant(-1) },
);
const I = (x: 0 | 1 | 2 | 3) => x;

/** Ops with symbolic order ids, resolved against the ids used so far (see resolve). */
type GenOp =
  | { t: 'place'; fresh: boolean; ref: number; o: Omit<NewBookOrder, 'orderId'> }
  | { t: 'cancel'; user: number; ref: number; owner: boolean }
  | { t: 'cancelCid'; user: number; cid: string }
  | { t: 'cancelAll'; user: number }
  | { t: 'amend'; user: number; ref: number; owner: boolean; price: number; qty: number }
  | { t: 'state'; state: 0 | 1 | 2 };

/** Cancels and amends mostly come from the order's owner. */
const owner = fc.integer({ min: 0, max: 9 }).map((x) => x !== 0);

type Mix = 'broad' | 'busy' | 'wide';

/**
 * An op stream's mix. `busy` stresses what is rare in a broad mix: reduce-only orders resting behind
 * their owner's ordinary orders, swept by FOK takers without self-trade prevention. `wide` spreads
 * prices so that books get deep (levels found through the tree, not just the walk from the top).
 */
function genOp(mix: Mix): fc.Arbitrary<GenOp> {
  const busy = mix === 'busy';
  const wide = mix === 'wide';
  const px = busy ? fc.integer({ min: 98, max: 102 }) : wide ? fc.integer({ min: 40, max: 160 }) : price;
  // Wide books: bids mostly below 100 and asks mostly above, so levels pile up instead of trading.
  const placePx = wide ? fc.integer({ min: 40, max: 110 }) : px;
  return fc.oneof(
    {
      weight: 14,
      arbitrary: fc
        .record({
          t: fc.constant('place' as const),
          fresh: fc.integer({ min: 0, max: 9 }).map((x) => x !== 0),
          ref,
          o: fc.record({
            user,
            side: fc.constantFrom(0 as const, 1 as const),
            type: fc.constantFrom(0 as const, 0 as const, 0 as const, 0 as const, 1 as const),
            timeInForce: busy
              ? fc.constantFrom(I(0), I(0), I(2), I(2))
              : fc.constantFrom(I(0), I(0), I(0), I(1), I(2), I(3)),
            price: placePx,
            quantity: qty,
            reduceOnly: fc.integer({ min: 0, max: busy ? 1 : 4 }).map((x) => x === 0),
            stp: busy ? fc.constant(I(3)) : fc.constantFrom(I(0), I(1), I(2), I(3), I(3), I(3)),
            clientOrderId: cid,
          }),
        })
        .map((g) => (wide && g.o.side === 1 ? { ...g, o: { ...g.o, price: g.o.price + 50 } } : g)),
    },
    {
      weight: busy || wide ? 1 : 3,
      arbitrary: fc.record({ t: fc.constant('cancel' as const), user, ref, owner }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant('cancelCid' as const),
        user,
        cid: fc.constantFrom('a', 'b', 'c'),
      }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('cancelAll' as const), user }) },
    {
      weight: 5,
      arbitrary: fc.record({ t: fc.constant('amend' as const), user, ref, owner, price: px, qty }),
    },
    {
      weight: busy || wide ? 0 : 1,
      arbitrary: fc
        .constantFrom(0 as const, 0 as const, 0 as const, 0 as const, 1 as const, 2 as const)
        .map((state) => ({ t: 'state' as const, state })),
    },
  );
}

/**
 * Turns symbolic ids into real ones: for a place, a fresh id or the ref-th latest; for a cancel or
 * amend, mostly an order resting on the book (-1: an id never placed).
 */
function resolver(book: () => OrderBook) {
  let last = 0;
  const owners = new Map<number, number>();
  const pickId = (r: number) => (r < 0 ? 10_000 + last : Math.max(1, last - r));
  const pick = (r: number) => {
    if (r < 0 || r % 4 === 3) return pickId(r);
    const resting = [...book().ordersOf(0), ...book().ordersOf(1)];
    return resting.length ? resting[r % resting.length].orderId : pickId(r);
  };
  const who = (g: { user: number; owner: boolean }, id: number) =>
    g.owner ? (owners.get(id) ?? g.user) : g.user;
  return (g: GenOp): Op => {
    switch (g.t) {
      case 'place': {
        const orderId = g.fresh ? ++last : pickId(g.ref);
        if (g.fresh) owners.set(orderId, g.o.user);
        return { t: 'place', o: { ...g.o, orderId } };
      }
      case 'cancel': {
        const id = pick(g.ref);
        return { t: 'cancel', user: who(g, id), id };
      }
      case 'amend': {
        const id = pick(g.ref);
        return { t: 'amend', user: who(g, id), id, price: g.price, qty: g.qty };
      }
      default:
        return g;
    }
  };
}

function apply(book: OrderBook, ref: ReferenceBook, o: Op): void {
  switch (o.t) {
    case 'place':
      book.place(o.o);
      ref.place(o.o);
      break;
    case 'cancel':
      book.cancel(o.user, o.id);
      ref.cancel(o.user, o.id);
      break;
    case 'cancelCid':
      book.cancelByClientId(o.user, o.cid);
      ref.cancelByCid(o.user, o.cid);
      break;
    case 'cancelAll':
      book.cancelAll(o.user);
      ref.cancelAll(o.user);
      break;
    case 'amend':
      book.amend(o.user, o.id, o.price, o.qty);
      ref.amend(o.user, o.id, o.price, o.qty);
      break;
    case 'state':
      book.setState(o.state);
      ref.setState(o.state);
      break;
  }
}

function simplify(o: ROrder): RestingBookOrder {
  const r: RestingBookOrder = {
    orderId: o.id,
    user: o.user,
    side: o.side as 0 | 1,
    price: o.price,
    quantity: o.qty,
    reduceOnly: o.ro,
    postOnly: o.post,
    stp: o.stp as 0 | 1 | 2 | 3,
  };
  if (o.cid !== undefined) r.clientOrderId = o.cid;
  return r;
}

/** Cheap checks (expect() per op would dominate the run); expect() only to report a failure. */
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`invariant broken: ${what}`);
}
function same<T>(actual: T, expected: T): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

/** Follows every order's open quantity through the events alone and checks it balances. */
class Ledger {
  open = new Map<number, number>();
  reduceOnly = new Set<number>();
  submitted = 0;
  filled = 0;
  removed = 0;

  apply(events: BookEvent[], op: Op): void {
    for (const e of events) {
      switch (e.kind) {
        case 'ACCEPTED':
          this.open.set(e.orderId, e.qty);
          this.submitted += e.qty;
          if (op.t === 'place' && op.o.reduceOnly) this.reduceOnly.add(e.orderId);
          else this.reduceOnly.delete(e.orderId);
          break;
        case 'FILL':
          for (const f of [e.taker, e.maker]) {
            const left = (this.open.get(f.orderId) ?? NaN) - e.qty;
            check(left === f.leaves, 'fill leaves = open - qty');
            check(f.open + f.close === e.qty && f.open >= 0 && f.close >= 0, 'open + close = qty');
            check(!this.reduceOnly.has(f.orderId) || f.open === 0, 'reduce-only never opens');
            this.open.set(f.orderId, left);
          }
          this.filled += 2 * e.qty;
          break;
        case 'CANCELED':
        case 'EXPIRED':
          check(this.open.get(e.orderId) === e.qty, 'canceled/expired quantity = open quantity');
          this.open.set(e.orderId, 0);
          this.removed += e.qty;
          break;
        case 'AMENDED':
          this.submitted += e.qty - (this.open.get(e.orderId) ?? NaN);
          this.open.set(e.orderId, e.qty);
          break;
      }
    }
  }

  check(resting: RestingBookOrder[]): void {
    let restingQty = 0;
    for (const o of resting) {
      check(this.open.get(o.orderId) === o.quantity, 'resting quantity = open quantity from events');
      restingQty += o.quantity;
    }
    let openTotal = 0;
    for (const q of this.open.values()) openTotal += q;
    check(openTotal === restingQty, 'only resting orders are open');
    // Submitted = filled (each fill takes q from two orders) + canceled/expired + resting.
    check(this.submitted === this.filled + this.removed + restingQty, 'quantity conserved');
  }
}

function checkInvariants(book: OrderBook, bids: RestingBookOrder[], asks: RestingBookOrder[]): void {
  check(!bids.length || !asks.length || bids[0].price < asks[0].price, 'book not crossed');
  for (let i = 1; i < bids.length; i++) check(bids[i - 1].price >= bids[i].price, 'bids best first');
  for (let i = 1; i < asks.length; i++) check(asks[i - 1].price <= asks[i].price, 'asks best first');
  let inLevels = 0;
  for (const l of [...book.depth(0), ...book.depth(1)]) inLevels += l.orders;
  check(inLevels === bids.length + asks.length && book.restingOrders === inLevels, 'order counts agree');
  let sum = 0;
  let long = 0;
  for (const p of book.positions().values()) {
    sum += p;
    if (p > 0) long += p;
  }
  check(sum === 0, 'positions sum to zero');
  check(book.longOi === long && book.shortOi === long, 'OI = sum of long = sum of short positions');
  check(book.longOi <= CAP, 'OI within its cap');
  for (const u of [1, 2, 3]) {
    const p = book.position(u);
    let buy = 0;
    let sell = 0;
    for (const o of [...bids, ...asks])
      if (o.user === u && o.reduceOnly) {
        if (o.side === 0) buy += o.quantity;
        else sell += o.quantity;
      }
    check(buy <= Math.max(-p, 0) && sell <= Math.max(p, 0), 'reduce-only orders within the position');
  }
}

const CAP = 40;

function run(mix: Mix, numRuns: number): void {
  fc.assert(
    fc.property(
      fc.array(genOp(mix), { minLength: 1, maxLength: 300, size: 'max' }),
      fc.boolean(),
      (gen, withRestores) => {
        let book = new OrderBook({
          maxLongOi: CAP,
          maxShortOi: CAP,
          maxOrderQty: MAX_QTY,
          maxPrice: MAX_PRICE,
        });
        const resolve = resolver(() => book);
        const ref = new ReferenceBook(CAP, CAP);
        const ledger = new Ledger();
        gen.forEach((g, i) => {
          const o = resolve(g);
          apply(book, ref, o);
          const events = book.events.toArray();
          same(events, ref.events);
          ledger.apply(events, o);
          const bids = book.ordersOf(0);
          const asks = book.ordersOf(1);
          same(bids, ref.book(0).map(simplify));
          same(asks, ref.book(1).map(simplify));
          same([book.longOi, book.shortOi], [ref.longOi, ref.shortOi]);
          for (const u of [1, 2, 3]) same(book.position(u), ref.pos.get(u) ?? 0);
          checkInvariants(book, bids, asks);
          ledger.check([...bids, ...asks]);
          if (withRestores && i % 25 === 24) {
            const restored = OrderBook.restore(book.snapshot());
            same(restored.ordersOf(0), bids);
            same(restored.ordersOf(1), asks);
            same([restored.seq, restored.longOi, restored.shortOi], [book.seq, book.longOi, book.shortOi]);
            book = restored;
          }
        });
      },
    ),
    { numRuns },
  );
}

describe('OrderBook against a naive reference', () => {
  it('gives identical events, books and positions on random op streams, keeping the invariants', () => {
    run('broad', 600);
  });

  it('agrees on reduce-only upkeep and FOK fillability under heavy reduce-only traffic', () => {
    run('busy', 400);
  });

  it('agrees on deep books with many price levels', () => {
    run('wide', 200);
  });
});
