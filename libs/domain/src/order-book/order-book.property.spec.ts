import fc from 'fast-check';
import { BookEvent } from './events';
import { OrderBook } from './order-book';
import { OrderBookApi } from './order-book-api';
import { ReferenceOrderBook } from './reference-order-book';
import { NewBookOrder, RestingBookOrder } from './types';

/*
 * The engine against an obviously-correct reference (ReferenceOrderBook: plain arrays, sorted naively
 * on every use, FOK by clone-run-rollback). Both must emit the same events (kinds, ids, prices, quantities, open/close
 * splits, reasons, sequence numbers) and hold the same book, positions and open interest after
 * every operation; and the engine's book must satisfy the invariants on its own. Both must also
 * report the same net level changes (the reference diffs its depth before and after each command),
 * and those changes, applied in order to an empty book of levels, must rebuild the depth.
 */

const MAX_QTY = 1000;
const MAX_PRICE = 1_000_000;

// ---------------------------------------------------------------- op streams

type Op =
  | { t: 'place'; o: NewBookOrder }
  | { t: 'cancel'; user: number; id: number }
  | { t: 'cancelCid'; user: number; cid: string }
  | { t: 'cancelAll'; user: number }
  | { t: 'amend'; user: number; id: number; price: number; qty: number }
  | { t: 'state'; state: 0 | 1 | 2 }
  | { t: 'adl'; id: number; user: number; counterparty: number; lots: number; price: number };

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
  | { t: 'state'; state: 0 | 1 | 2 }
  | { t: 'adl'; user: number; counterparty: number; lots: number; price: number };

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
      // Auto-deleveraging closes between two users (sometimes the same one, or not opposite).
      weight: wide ? 1 : 2,
      arbitrary: fc.record({
        t: fc.constant('adl' as const),
        user,
        counterparty: user,
        lots: fc.oneof(
          { weight: 9, arbitrary: fc.integer({ min: 1, max: 15 }) },
          { weight: 1, arbitrary: qty },
        ),
        price: px,
      }),
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
  let adlIds = 1_000_000;
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
      case 'adl':
        // The ADL close's ids: never an order's (the taker's and maker's, 2 per close).
        return { ...g, id: (adlIds += 2) };
      default:
        return g;
    }
  };
}

function apply(book: OrderBookApi, o: Op): void {
  switch (o.t) {
    case 'place':
      book.place(o.o);
      break;
    case 'cancel':
      book.cancel(o.user, o.id);
      break;
    case 'cancelCid':
      book.cancelByClientId(o.user, o.cid);
      break;
    case 'cancelAll':
      book.cancelAll(o.user);
      break;
    case 'amend':
      book.amend(o.user, o.id, o.price, o.qty);
      break;
    case 'state':
      book.setState(o.state);
      break;
    case 'adl':
      book.deleverage(o.id, o.user, o.id + 1, o.counterparty, o.lots, o.price);
      break;
  }
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
          if (op.t === 'adl') {
            // Not orders: closes only, nothing stays open.
            for (const f of [e.taker, e.maker])
              check(f.open === 0 && f.close === e.qty && f.leaves === 0, 'ADL only closes');
            check(e.qty > 0 && e.qty <= op.lots, 'ADL closes at most the lots asked');
            break;
          }
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

/** An L2 book kept only from level changes, as a market-data consumer would. */
class LevelMirror {
  private readonly sides = [new Map<number, number>(), new Map<number, number>()];

  apply(book: OrderBookApi): void {
    const lc = book.levelChanges;
    for (let i = 0; i < lc.count; i++) {
      const side = this.sides[lc.side(i)];
      if (lc.quantity(i) === 0) side.delete(lc.price(i));
      else side.set(lc.price(i), lc.quantity(i));
    }
  }

  levels(side: 0 | 1): [number, number][] {
    return [...this.sides[side]].sort(([a], [b]) => (side === 0 ? b - a : a - b));
  }
}

function checkLevelChanges(book: OrderBook, ref: ReferenceOrderBook, o: Op, mirror: LevelMirror): void {
  const changes = book.levelChanges.toArray();
  same(changes, ref.levelChanges.toArray());
  for (const c of changes) check(c.quantity === book.levelQty(c.side, c.price), 'change = levelQty');
  const probe = o.t === 'place' ? o.o.price : o.t === 'amend' ? o.price : 100;
  for (const side of [0, 1] as const) same(book.levelQty(side, probe), ref.levelQty(side, probe));
  mirror.apply(book);
  for (const side of [0, 1] as const)
    same(
      mirror.levels(side),
      book.depth(side).map((l) => [l.price, l.quantity]),
    );
}

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
        const ref = new ReferenceOrderBook({
          maxLongOi: CAP,
          maxShortOi: CAP,
          maxOrderQty: MAX_QTY,
          maxPrice: MAX_PRICE,
        });
        const ledger = new Ledger();
        const mirror = new LevelMirror();
        gen.forEach((g, i) => {
          const o = resolve(g);
          apply(book, o);
          apply(ref, o);
          const events = book.events.toArray();
          same(events, ref.events.toArray());
          ledger.apply(events, o);
          const bids = book.ordersOf(0);
          const asks = book.ordersOf(1);
          same(bids, ref.ordersOf(0));
          same(asks, ref.ordersOf(1));
          same([book.depth(0), book.depth(1)], [ref.depth(0), ref.depth(1)]);
          checkLevelChanges(book, ref, o, mirror);
          same([book.longOi, book.shortOi], [ref.longOi, ref.shortOi]);
          for (const u of [1, 2, 3]) {
            same(book.position(u), ref.position(u));
            same(book.openOrders(u), ref.openOrders(u));
          }
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
