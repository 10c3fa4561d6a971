import { BookPair } from './book-pair.harness';
import { BookEvent } from './events';
import { OrderBook } from './order-book';
import { OrderBookApi } from './order-book-api';
import {
  BookMarketState,
  BookOrderType,
  BookSide,
  BookStpMode,
  BookTimeInForce,
  NewBookOrder,
  OrderBookConfig,
} from './types';

const { BUY, SELL } = BookSide;
const { GTC, IOC, FOK, GTX } = BookTimeInForce;

let nextId = 1;
function order(o: Partial<NewBookOrder> = {}): NewBookOrder {
  return {
    orderId: nextId++,
    user: 1,
    side: BUY,
    type: BookOrderType.LIMIT,
    timeInForce: GTC,
    price: 100,
    quantity: 1,
    reduceOnly: false,
    stp: BookStpMode.NONE,
    ...o,
  };
}

/** Places and returns the command's events. */
function place(book: OrderBookApi, o: Partial<NewBookOrder>): BookEvent[] {
  book.place(order(o));
  return book.events.toArray();
}
const kinds = (events: BookEvent[]) => events.map((e) => ('reason' in e ? `${e.kind}:${e.reason}` : e.kind));
const fills = (events: BookEvent[]) => events.filter((e) => e.kind === 'FILL');
const restingIds = (book: OrderBookApi, side: BookSide) => book.ordersOf(side).map((o) => o.orderId);

/** Both books at once (BookPair): each behaviour below must hold for OrderBook and ReferenceOrderBook. */
function book(config: OrderBookConfig = {}): OrderBookApi {
  return new BookPair(config);
}

/** Gives `user` a position of `size` (signed) by trading with user 99 at 100. */
function givePosition(b: OrderBookApi, user: number, size: number): void {
  const side = size > 0 ? BUY : SELL;
  place(b, { user: 99, side: side === BUY ? SELL : BUY, price: 100, quantity: Math.abs(size) });
  place(b, { user, side, price: 100, quantity: Math.abs(size) });
  expect(b.position(user)).toBe(size);
}

describe('OrderBook: price-time priority and time in force', () => {
  it('GTC rests, trades at the maker price best price first then oldest first, and rests the rest', () => {
    const b = book();
    const a1 = order({ user: 2, side: SELL, price: 101, quantity: 2 });
    const a2 = order({ user: 3, side: SELL, price: 101, quantity: 2 });
    const a0 = order({ user: 4, side: SELL, price: 100, quantity: 1 });
    for (const o of [a1, a2, a0]) b.place(o);
    expect(restingIds(b, SELL)).toEqual([a0.orderId, a1.orderId, a2.orderId]);
    const ev = place(b, { side: BUY, price: 101, quantity: 6 });
    expect(fills(ev).map((f) => (f.kind === 'FILL' ? [f.maker.orderId, f.price, f.qty] : []))).toEqual([
      [a0.orderId, 100, 1],
      [a1.orderId, 101, 2],
      [a2.orderId, 101, 2],
    ]);
    expect(b.ordersOf(BUY)).toMatchObject([{ price: 101, quantity: 1 }]);
    expect(b.ordersOf(SELL)).toEqual([]);
  });

  it('IOC fills what it can and expires the rest', () => {
    const b = book();
    place(b, { user: 2, side: SELL, price: 100, quantity: 2 });
    const ev = place(b, { timeInForce: IOC, price: 100, quantity: 5 });
    expect(kinds(ev)).toEqual(['ACCEPTED', 'FILL', 'EXPIRED:IOC_REMAINDER']);
    expect(ev[2]).toMatchObject({ qty: 3 });
    expect(b.restingOrders).toBe(0);
  });

  it('FOK fills completely or expires without touching the book', () => {
    const b = book();
    place(b, { user: 2, side: SELL, price: 100, quantity: 2 });
    place(b, { user: 3, side: SELL, price: 101, quantity: 2 });
    expect(kinds(place(b, { timeInForce: FOK, price: 101, quantity: 5 }))).toEqual([
      'ACCEPTED',
      'EXPIRED:FOK_UNFILLABLE',
    ]);
    expect(b.depth(SELL)).toEqual([
      { price: 100, quantity: 2, orders: 1 },
      { price: 101, quantity: 2, orders: 1 },
    ]);
    expect(kinds(place(b, { timeInForce: FOK, price: 100, quantity: 3 }))).toEqual([
      'ACCEPTED',
      'EXPIRED:FOK_UNFILLABLE',
    ]);
    expect(kinds(place(b, { timeInForce: FOK, price: 101, quantity: 4 }))).toEqual([
      'ACCEPTED',
      'FILL',
      'FILL',
    ]);
    expect(b.restingOrders).toBe(0);
  });

  it('FOK counts the reduce-only liquidity that a maker loses to its own earlier fills', () => {
    const b = book();
    givePosition(b, 2, 5);
    // User 2: an ordinary sell at 100, then a reduce-only sell at 101 closing the long 5.
    place(b, { user: 2, side: SELL, price: 100, quantity: 5 });
    place(b, { user: 2, side: SELL, price: 101, quantity: 5, reduceOnly: true });
    expect(b.depth(SELL).map((l) => l.quantity)).toEqual([5, 5]);
    // Filling the 100 leaves user 2 flat, so the reduce-only 101 would be trimmed away: not fillable.
    expect(kinds(place(b, { user: 3, timeInForce: FOK, price: 101, quantity: 6 }))).toEqual([
      'ACCEPTED',
      'EXPIRED:FOK_UNFILLABLE',
    ]);
    expect(kinds(place(b, { user: 3, timeInForce: FOK, price: 101, quantity: 5 }))).toEqual([
      'ACCEPTED',
      'FILL',
      'CANCELED:REDUCE_ONLY_TRIM',
    ]);
    expect(b.restingOrders).toBe(0);
  });

  it('GTX rests when passive and is rejected (-2010) when it would take', () => {
    const b = book();
    place(b, { user: 2, side: SELL, price: 101 });
    expect(kinds(place(b, { timeInForce: GTX, price: 100 }))).toEqual(['ACCEPTED']);
    const ev = place(b, { timeInForce: GTX, price: 101 });
    expect(ev).toEqual([expect.objectContaining({ kind: 'REJECTED', reason: 'POST_ONLY_WOULD_TAKE' })]);
    expect(b.ordersOf(BUY)).toMatchObject([{ price: 100, postOnly: true }]);
  });

  it('MARKET sweeps levels and expires what the book cannot fill; GTX market is invalid', () => {
    const b = book();
    place(b, { user: 2, side: BUY, price: 99, quantity: 1 });
    place(b, { user: 2, side: BUY, price: 98, quantity: 1 });
    const ev = place(b, { side: SELL, type: BookOrderType.MARKET, price: 0, quantity: 3 });
    expect(kinds(ev)).toEqual(['ACCEPTED', 'FILL', 'FILL', 'EXPIRED:NO_LIQUIDITY']);
    expect(fills(ev).map((f) => f.kind === 'FILL' && f.price)).toEqual([99, 98]);
    expect(kinds(place(b, { type: BookOrderType.MARKET, timeInForce: GTX }))).toEqual([
      'REJECTED:INVALID_ORDER',
    ]);
  });

  it('rejects zero, fractional, huge quantities and bad prices, and duplicate ids', () => {
    const b = book({ maxOrderQty: 1000 });
    for (const quantity of [0, -1, 1.5, 1001, Number.MAX_SAFE_INTEGER, 2 ** 60, NaN])
      expect(kinds(place(b, { quantity }))).toEqual(['REJECTED:INVALID_QUANTITY']);
    expect(kinds(place(b, { quantity: 1000 }))).toEqual(['ACCEPTED']);
    for (const price of [0, -5, 99.5, Infinity])
      expect(kinds(place(b, { price }))).toEqual(['REJECTED:INVALID_PRICE']);
    const o = order({ price: 90 });
    b.place(o);
    b.place({ ...o });
    expect(kinds(b.events.toArray())).toEqual(['REJECTED:DUPLICATE_ORDER_ID']);
    place(b, { price: 90, clientOrderId: 'x' });
    expect(place(b, { price: 90, clientOrderId: 'x' })).toEqual([
      expect.objectContaining({ reason: 'DUPLICATE_CLIENT_ORDER_ID' }),
    ]);
    expect(kinds(place(b, { user: 2, price: 90, clientOrderId: 'x' }))).toEqual(['ACCEPTED']);
  });

  it('numbers every event with a gap-free per-symbol sequence', () => {
    const b = book();
    const seqs: number[] = [];
    for (const o of [{ side: SELL }, { side: BUY, quantity: 2 }, { side: BUY, timeInForce: GTX }]) {
      b.place(order(o as Partial<NewBookOrder>));
      seqs.push(...b.events.toArray().map((e) => e.seq));
    }
    b.cancel(1, 424242);
    seqs.push(b.events.toArray()[0].seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(b.seq).toBe(seqs.length);
  });
});

describe('OrderBook: cancel', () => {
  it('cancels by id and by client order id, only for the owner', () => {
    const b = book();
    const o = order({ clientOrderId: 'mine' });
    b.place(o);
    expect(b.cancel(2, o.orderId)).toBe(false);
    expect(b.events.toArray()).toEqual([
      expect.objectContaining({ kind: 'CANCEL_REJECTED', reason: 'UNKNOWN_ORDER' }),
    ]);
    expect(b.orderIdOf(1, 'mine')).toBe(o.orderId);
    expect(b.cancelByClientId(1, 'mine')).toBe(true);
    expect(b.events.toArray()).toEqual([
      expect.objectContaining({ kind: 'CANCELED', orderId: o.orderId, qty: 1, reason: 'USER_CANCELED' }),
    ]);
    expect(b.cancel(1, o.orderId)).toBe(false);
    expect(b.cancelByClientId(1, 'mine')).toBe(false);
    // The client id is free again once the order is gone.
    expect(kinds(place(b, { clientOrderId: 'mine' }))).toEqual(['ACCEPTED']);
  });

  it('cancel-all removes every open order of one user and nobody else', () => {
    const b = book();
    place(b, { price: 90 });
    place(b, { side: SELL, price: 110 });
    place(b, { user: 2, price: 91 });
    expect(b.cancelAll(1)).toBe(2);
    expect(kinds(b.events.toArray())).toEqual(['CANCELED:CANCEL_ALL', 'CANCELED:CANCEL_ALL']);
    expect(b.ordersOf(BUY).map((o) => o.user)).toEqual([2]);
    expect(b.cancelAll(7)).toBe(0);
  });
});

describe('OrderBook: amend', () => {
  function threeAt100(b: OrderBookApi) {
    const os = [1, 2, 3].map((user) => order({ user, price: 100, quantity: 5 }));
    for (const o of os) b.place(o);
    return os.map((o) => o.orderId);
  }

  it('keeps priority on a decrease at the same price', () => {
    const b = book();
    const [x, y, z] = threeAt100(b);
    expect(b.amend(1, x, 100, 2)).toBe(true);
    expect(b.events.toArray()).toEqual([
      expect.objectContaining({ kind: 'AMENDED', qty: 2, keptPriority: true }),
    ]);
    expect(restingIds(b, BUY)).toEqual([x, y, z]);
    expect(b.depth(BUY)).toEqual([{ price: 100, quantity: 12, orders: 3 }]);
  });

  it('loses priority on an increase or a price change', () => {
    const b = book();
    const [x, y, z] = threeAt100(b);
    b.amend(1, x, 100, 6);
    expect(b.events.toArray()).toEqual([expect.objectContaining({ kind: 'AMENDED', keptPriority: false })]);
    expect(restingIds(b, BUY)).toEqual([y, z, x]);
    b.amend(2, y, 99, 5);
    b.amend(2, y, 100, 5);
    expect(restingIds(b, BUY)).toEqual([z, x, y]);
  });

  it('trades like a new order with the same id when the new price crosses', () => {
    const b = book();
    place(b, { user: 2, side: SELL, price: 102, quantity: 3 });
    const o = order({ price: 100, quantity: 5 });
    b.place(o);
    b.amend(1, o.orderId, 102, 5);
    const ev = b.events.toArray();
    expect(kinds(ev)).toEqual(['AMENDED:AMENDED_BY_USER', 'FILL']);
    expect(ev[1]).toMatchObject({ price: 102, qty: 3, taker: { orderId: o.orderId, leaves: 2 } });
    expect(b.ordersOf(BUY)).toMatchObject([{ orderId: o.orderId, price: 102, quantity: 2 }]);
  });

  it('rejects unknown orders, bad values, post-only crossing, and leaves the order as it was', () => {
    const b = book();
    place(b, { user: 2, side: SELL, price: 102 });
    const o = order({ price: 100, timeInForce: GTX });
    b.place(o);
    const tries: [number, number, number, number, string][] = [
      [1, 999, 100, 1, 'UNKNOWN_ORDER'],
      [2, o.orderId, 100, 1, 'UNKNOWN_ORDER'],
      [1, o.orderId, 100, 0, 'INVALID_QUANTITY'],
      [1, o.orderId, 0, 1, 'INVALID_PRICE'],
      [1, o.orderId, 102, 1, 'POST_ONLY_WOULD_TAKE'],
    ];
    for (const [user, id, price, qty, reason] of tries) {
      expect(b.amend(user, id, price, qty)).toBe(false);
      expect(b.events.toArray()).toEqual([expect.objectContaining({ kind: 'AMEND_REJECTED', reason })]);
    }
    expect(b.ordersOf(BUY)).toMatchObject([{ orderId: o.orderId, price: 100, quantity: 1 }]);
  });
});

describe('OrderBook: positions, reduce-only and open interest', () => {
  it('splits each fill into close and open for both sides', () => {
    const b = book();
    givePosition(b, 1, 3); // user 1 long 3, user 99 short 3
    place(b, { user: 2, side: BUY, price: 100, quantity: 5 });
    const [f] = fills(place(b, { user: 1, side: SELL, price: 100, quantity: 5 }));
    expect(f).toMatchObject({
      qty: 5,
      taker: { user: 1, close: 3, open: 2 },
      maker: { user: 2, close: 0, open: 5 },
    });
    expect([b.position(1), b.position(2), b.position(99)]).toEqual([-2, 5, -3]);
    expect([b.longOi, b.shortOi]).toEqual([5, 5]);
  });

  it('rejects reduce-only without an opposite position (-2022)', () => {
    const b = book();
    expect(place(b, { reduceOnly: true })).toEqual([
      expect.objectContaining({ kind: 'REJECTED', reason: 'REDUCE_ONLY_REJECTED' }),
    ]);
    givePosition(b, 1, 2);
    expect(kinds(place(b, { side: BUY, reduceOnly: true }))).toEqual(['REJECTED:REDUCE_ONLY_REJECTED']);
  });

  it('caps reduce-only to the position minus the other resting reduce-only orders', () => {
    const b = book();
    givePosition(b, 1, 5);
    expect(place(b, { side: SELL, price: 110, quantity: 3, reduceOnly: true })).toEqual([
      expect.objectContaining({ kind: 'ACCEPTED', qty: 3, capped: false }),
    ]);
    expect(place(b, { side: SELL, price: 111, quantity: 9, reduceOnly: true })).toEqual([
      expect.objectContaining({ kind: 'ACCEPTED', qty: 2, capped: true }),
    ]);
    expect(kinds(place(b, { side: SELL, price: 112, quantity: 1, reduceOnly: true }))).toEqual([
      'REJECTED:REDUCE_ONLY_REJECTED',
    ]);
  });

  it('trims resting reduce-only orders, worst first, when the position shrinks', () => {
    const b = book();
    givePosition(b, 1, 5);
    const near = order({ side: SELL, price: 110, quantity: 3, reduceOnly: true });
    const far = order({ side: SELL, price: 120, quantity: 2, reduceOnly: true });
    b.place(near);
    b.place(far);
    // User 1 sells 3 with an ordinary order: long 2 left, so 3 of the 5 reduce-only lots must go.
    place(b, { user: 2, side: BUY, price: 100, quantity: 3 });
    const ev = place(b, { user: 1, side: SELL, price: 100, quantity: 3 });
    expect(kinds(ev)).toEqual(['ACCEPTED', 'FILL', 'CANCELED:REDUCE_ONLY_TRIM', 'AMENDED:REDUCE_ONLY_TRIM']);
    expect(ev[2]).toMatchObject({ orderId: far.orderId, qty: 2 });
    expect(ev[3]).toMatchObject({ orderId: near.orderId, qty: 2, keptPriority: true });
    expect(b.ordersOf(SELL)).toMatchObject([{ orderId: near.orderId, quantity: 2 }]);
  });

  it('a reduce-only fill never opens a position', () => {
    const b = book();
    givePosition(b, 1, -4);
    place(b, { side: BUY, price: 100, quantity: 4, reduceOnly: true });
    const [f] = fills(place(b, { user: 2, side: SELL, price: 100, quantity: 10 }));
    expect(f).toMatchObject({ qty: 4, maker: { user: 1, close: 4, open: 0 } });
    expect(b.position(1)).toBe(0);
  });

  it('checks OI caps at entry against the worst case and lets closing orders through at the cap', () => {
    const b = book({ maxLongOi: 10, maxShortOi: 10 });
    givePosition(b, 1, 8); // OI 8
    expect(place(b, { user: 3, side: BUY, price: 90, quantity: 3 })).toEqual([
      expect.objectContaining({ kind: 'REJECTED', reason: 'OI_CAP_EXCEEDED' }),
    ]);
    expect(kinds(place(b, { user: 3, side: BUY, price: 90, quantity: 2 }))).toEqual(['ACCEPTED']);
    // User 1 is long 8: selling 8 only closes, selling 10 may open 2 (8 + 2 <= 10), 11 may open 3.
    expect(kinds(place(b, { user: 1, side: SELL, price: 120, quantity: 10 }))).toEqual(['ACCEPTED']);
    expect(kinds(place(b, { user: 1, side: SELL, price: 121, quantity: 11 }))).toEqual([
      'REJECTED:OI_CAP_EXCEEDED',
    ]);
    const o = order({ user: 4, side: BUY, price: 80, quantity: 1 });
    b.place(o);
    expect(b.amend(4, o.orderId, 80, 5)).toBe(false);
    expect(b.events.toArray()).toEqual([expect.objectContaining({ reason: 'OI_CAP_EXCEEDED' })]);
    expect(b.longOi).toBeLessThanOrEqual(10);
  });
});

describe('OrderBook: auto-deleveraging close', () => {
  it('closes the liquidated position against the opposite one at the given price, as a fill', () => {
    const b = book();
    givePosition(b, 1, 4); // user 1 long 4, user 99 short 4
    givePosition(b, 2, -3); // user 2 short 3, user 99 long 3 => 99 net short 1
    expect([b.longOi, b.shortOi]).toEqual([4, 4]);
    expect(b.deleverage(500, 1, 501, 2, 2, 90)).toBe(2);
    expect(b.events.toArray()).toEqual([
      {
        kind: 'FILL',
        seq: b.seq,
        price: 90,
        qty: 2,
        taker: { orderId: 500, user: 1, side: SELL, close: 2, open: 0, leaves: 0 },
        maker: { orderId: 501, user: 2, side: BUY, close: 2, open: 0, leaves: 0 },
      },
    ]);
    expect([b.position(1), b.position(2), b.position(99)]).toEqual([2, -1, -1]);
    expect([b.longOi, b.shortOi]).toEqual([2, 2]);
  });

  it('never opens or flips: closes at most the smaller position', () => {
    const b = book();
    givePosition(b, 1, -2);
    givePosition(b, 2, 5);
    expect(b.deleverage(500, 1, 501, 2, 10, 100)).toBe(2);
    expect([b.position(1), b.position(2)]).toEqual([0, 3]);
    expect(b.deleverage(502, 2, 503, 1, 10, 100)).toBe(0);
    expect(b.events.count).toBe(0);
  });

  it('does nothing for positions on the same side, the same user, or bad lots and prices', () => {
    const b = book();
    givePosition(b, 1, 2);
    givePosition(b, 2, 3);
    const seq = b.seq;
    expect(b.deleverage(500, 1, 501, 2, 1, 100)).toBe(0);
    expect(b.deleverage(500, 1, 501, 1, 1, 100)).toBe(0);
    expect(b.deleverage(500, 1, 501, 99, 0, 100)).toBe(0);
    expect(b.deleverage(500, 1, 501, 99, 1.5, 100)).toBe(0);
    expect(b.deleverage(500, 1, 501, 99, 1, 0)).toBe(0);
    expect(b.deleverage(500, 1, 501, 7, 1, 100)).toBe(0);
    expect(b.seq).toBe(seq);
    expect([b.position(1), b.position(2)]).toEqual([2, 3]);
  });

  it("trims both users' reduce-only orders as any fill does; the book levels follow", () => {
    const b = book();
    givePosition(b, 1, 3);
    givePosition(b, 2, -3);
    place(b, { user: 1, side: SELL, price: 120, quantity: 3, reduceOnly: true });
    place(b, { user: 2, side: BUY, price: 80, quantity: 2, reduceOnly: true });
    b.deleverage(500, 1, 501, 2, 2, 100);
    expect(kinds(b.events.toArray())).toEqual([
      'FILL',
      'AMENDED:REDUCE_ONLY_TRIM',
      'AMENDED:REDUCE_ONLY_TRIM',
    ]);
    expect(b.levelChanges.toArray()).toEqual([
      { side: BUY, price: 80, quantity: 1 },
      { side: SELL, price: 120, quantity: 1 },
    ]);
  });

  it('persists through a snapshot (positions and OI only)', () => {
    const b = new OrderBook();
    b.place(order({ user: 1, side: BUY, quantity: 3 }));
    b.place(order({ user: 2, side: SELL, quantity: 3 }));
    b.deleverage(500, 1, 501, 2, 1, 100);
    const r = OrderBook.restore(b.snapshot());
    expect([r.position(1), r.position(2), r.longOi, r.shortOi, r.seq]).toEqual([2, -2, 2, 2, b.seq]);
  });
});

describe('OrderBook: self-trade prevention', () => {
  function withOwnMaker(stp: BookStpMode | undefined) {
    const b = book();
    const mine = order({ user: 1, side: SELL, price: 100, quantity: 2 });
    b.place(mine);
    place(b, { user: 2, side: SELL, price: 100, quantity: 2 });
    const o = order({ user: 1, side: BUY, price: 100, quantity: 3 });
    if (stp === undefined) delete o.stp;
    else o.stp = stp;
    b.place(o);
    const ev = b.events.toArray();
    return { b, ev, mine };
  }

  it('EXPIRE_TAKER (the default) expires the taker and keeps the maker', () => {
    const { b, ev } = withOwnMaker(undefined);
    expect(kinds(ev)).toEqual(['ACCEPTED', 'EXPIRED:SELF_TRADE']);
    expect(ev[1]).toMatchObject({ qty: 3 });
    expect(b.ordersOf(SELL).map((o) => o.user)).toEqual([1, 2]);
  });

  it('EXPIRE_MAKER expires the own maker and trades on', () => {
    const { b, ev, mine } = withOwnMaker(BookStpMode.EXPIRE_MAKER);
    expect(kinds(ev)).toEqual(['ACCEPTED', 'EXPIRED:SELF_TRADE', 'FILL']);
    expect(ev[1]).toMatchObject({ orderId: mine.orderId, qty: 2 });
    expect(b.ordersOf(BUY)).toMatchObject([{ user: 1, quantity: 1 }]);
  });

  it('EXPIRE_BOTH expires both', () => {
    const { b, ev, mine } = withOwnMaker(BookStpMode.EXPIRE_BOTH);
    expect(kinds(ev)).toEqual(['ACCEPTED', 'EXPIRED:SELF_TRADE', 'EXPIRED:SELF_TRADE']);
    expect(ev[1]).toMatchObject({ orderId: mine.orderId });
    expect(b.ordersOf(SELL).map((o) => o.user)).toEqual([2]);
    expect(b.ordersOf(BUY)).toEqual([]);
  });

  it('NONE trades with itself, leaving the position unchanged; the maker leg applies first', () => {
    const { b, ev } = withOwnMaker(BookStpMode.NONE);
    expect(kinds(ev)).toEqual(['ACCEPTED', 'FILL', 'FILL']);
    // From no position: the maker's sell opens a short, the taker's buy closes it (risk settles a
    // fill's maker copy first and must find the same split).
    expect(ev[1]).toMatchObject({
      taker: { user: 1, close: 2, open: 0 },
      maker: { user: 1, close: 0, open: 2 },
    });
    expect(b.position(1)).toBe(1);
    expect(b.position(2)).toBe(-1);
  });
});

describe('OrderBook: market states', () => {
  it('HALT refuses new orders and amends but lets cancels through; TRADING resumes', () => {
    const b = book();
    const o = order({ price: 90 });
    b.place(o);
    b.setState(BookMarketState.HALT);
    expect(b.events.toArray()).toEqual([expect.objectContaining({ kind: 'MARKET_STATE', state: 'HALT' })]);
    expect(place(b, {})).toEqual([expect.objectContaining({ reason: 'MARKET_NOT_TRADING' })]);
    expect(b.amend(1, o.orderId, 91, 1)).toBe(false);
    expect(b.cancel(1, o.orderId)).toBe(true);
    b.setState(BookMarketState.TRADING);
    expect(kinds(place(b, {}))).toEqual(['ACCEPTED']);
  });

  it('CLOSE cancels every open order and refuses new ones', () => {
    const b = book();
    place(b, { price: 90 });
    place(b, { user: 2, side: SELL, price: 110 });
    b.setState(BookMarketState.CLOSE);
    expect(kinds(b.events.toArray())).toEqual([
      'MARKET_STATE',
      'CANCELED:MARKET_CLOSED',
      'CANCELED:MARKET_CLOSED',
    ]);
    expect(b.restingOrders).toBe(0);
    expect(kinds(place(b, {}))).toEqual(['REJECTED:MARKET_NOT_TRADING']);
  });
});

describe('OrderBook: snapshot', () => {
  function busyBook(): OrderBook {
    const b = new OrderBook({ maxLongOi: 1000, maxShortOi: 900, maxOrderQty: 500 });
    givePosition(b, 1, 7);
    for (let i = 0; i < 200; i++) {
      const side = i % 2 === 0 ? BUY : SELL;
      const price = side === BUY ? 99 - (i % 37) : 101 + (i % 41);
      place(b, {
        user: 2 + (i % 5),
        side,
        price,
        quantity: 1 + (i % 7),
        clientOrderId: i % 3 ? undefined : `c${i}`,
      });
    }
    place(b, { user: 1, side: SELL, price: 130, quantity: 4, reduceOnly: true, timeInForce: GTX });
    b.cancel(4, 10);
    return b;
  }

  it('restores the same book, positions, OI, sequence and behaviour', () => {
    const a = busyBook();
    const bytes = a.snapshot();
    const b = OrderBook.restore(bytes);
    for (const side of [BUY, SELL]) expect(b.ordersOf(side)).toEqual(a.ordersOf(side));
    expect(b.positions()).toEqual(a.positions());
    expect([b.seq, b.longOi, b.shortOi, b.state]).toEqual([a.seq, a.longOi, a.shortOi, a.state]);
    for (const u of [1, 2, 3, 4, 5, 6]) expect(b.openOrders(u)).toEqual(a.openOrders(u));
    expect(b.orderIdOf(2, 'c0')).toBe(a.orderIdOf(2, 'c0'));
    // The same commands give the same events on both.
    const cmds: ((x: OrderBook) => void)[] = [
      (x) => x.place(order({ orderId: 5000, user: 9, side: SELL, price: 80, quantity: 40 })),
      (x) => x.place(order({ orderId: 5001, user: 9, side: BUY, price: 200, quantity: 40 })),
      (x) => x.cancelAll(3),
      (x) =>
        x.place(order({ orderId: 5002, user: 1, side: SELL, price: 131, quantity: 9, reduceOnly: true })),
      (x) => x.amend(2, a.ordersOf(BUY)[0]?.orderId ?? 0, 150, 3),
      (x) => x.place(order({ orderId: 5003, user: 1, side: BUY, price: 300, quantity: 1000 })),
    ];
    for (const c of cmds) {
      c(a);
      c(b);
      expect(b.events.toArray()).toEqual(a.events.toArray());
    }
    expect(OrderBook.restore(b.snapshot()).snapshot()).toEqual(a.snapshot());
  });

  it('round-trips an empty book and refuses garbage', () => {
    const e = new OrderBook();
    expect(OrderBook.restore(e.snapshot()).restingOrders).toBe(0);
    expect(() => OrderBook.restore(new Uint8Array(256))).toThrow(/unknown format/);
    expect(() => OrderBook.restore(busyBook().snapshot().subarray(0, 200))).toThrow(/length|truncated/);
  });

  it('keeps its byte format: a fixed book encodes to the same bytes as before the split into modules', () => {
    const b = new OrderBook({ maxLongOi: 1000, maxShortOi: 900, maxOrderQty: 500 });
    const put = (id: number, user: number, side: BookSide, price: number, qty: number, o = {}) =>
      b.place({ ...order({ orderId: id, user, side, price, quantity: qty }), ...o });
    for (let i = 0; i < 40; i++) {
      const side = i % 2 ? SELL : BUY;
      const price = side === SELL ? 101 + (i % 7) : 99 - (i % 5);
      put(100 + i, 1 + (i % 4), side, price, 1 + (i % 5), i % 3 ? {} : { clientOrderId: `k${i}` });
    }
    put(200, 5, BUY, 103, 9);
    put(201, 5, SELL, 110, 4, { reduceOnly: true, clientOrderId: 'close' });
    b.cancel(2, 101);
    b.amend(3, 102, 98, 2);
    expect(b.positions()).toEqual(
      new Map([
        [2, -4],
        [4, -5],
        [5, 9],
      ]),
    );
    const bytes = b.snapshot();
    let fnv1a = 0x811c9dc5;
    for (const x of bytes) fnv1a = Math.imul(fnv1a ^ x, 0x01000193) >>> 0;
    // Computed with the single-file OrderBook this format was released with.
    expect([bytes.length, fnv1a.toString(16)]).toEqual([1367, 'bd3574d4']);
  });
});
