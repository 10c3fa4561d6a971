import { BookPair } from './book-pair.harness';
import { OrderBook } from './order-book';
import {
  BookMarketState,
  BookOrderType,
  BookSide,
  BookStpMode,
  BookTimeInForce,
  NewBookOrder,
} from './types';

const { BUY, SELL } = BookSide;

let nextId = 1;
function order(o: Partial<NewBookOrder> = {}): NewBookOrder {
  return {
    orderId: nextId++,
    user: 1,
    side: BUY,
    type: BookOrderType.LIMIT,
    timeInForce: BookTimeInForce.GTC,
    price: 100,
    quantity: 1,
    reduceOnly: false,
    stp: BookStpMode.NONE,
    ...o,
  };
}

/** Both books (BookPair checks they report the same level changes after every command). */
const book = () => new BookPair();
const changes = (b: BookPair) => b.levelChanges.toArray();

describe('OrderBook level changes', () => {
  it('a resting order adds its level; a rejected order changes nothing', () => {
    const b = book();
    b.place(order({ price: 99, quantity: 3 }));
    expect(changes(b)).toEqual([{ side: BUY, price: 99, quantity: 3 }]);
    b.place(order({ price: 0 }));
    expect(b.events.count).toBe(1);
    expect(changes(b)).toEqual([]);
    expect([b.levelQty(BUY, 99), b.levelQty(BUY, 98), b.levelQty(SELL, 99)]).toEqual([3, 0, 0]);
  });

  it('a sweep lists every level it emptied or shrank, bids best first then asks best first', () => {
    const b = book();
    for (const price of [101, 102, 103]) b.place(order({ user: 2, side: SELL, price, quantity: 2 }));
    b.place(order({ user: 2, side: SELL, price: 103, quantity: 2 }));
    b.place(order({ user: 3, price: 98, quantity: 1 }));
    b.place(order({ price: 103, quantity: 5 }));
    expect(changes(b)).toEqual([
      { side: SELL, price: 101, quantity: 0 },
      { side: SELL, price: 102, quantity: 0 },
      { side: SELL, price: 103, quantity: 3 },
    ]);
    // A market sell takes the best bid; a buy through the asks rests its remainder.
    b.place(order({ user: 3, price: 97, quantity: 1 }));
    b.place(order({ side: SELL, type: BookOrderType.MARKET, price: 0, quantity: 1 }));
    expect(changes(b)).toEqual([{ side: BUY, price: 98, quantity: 0 }]);
    b.place(order({ user: 4, price: 104, quantity: 4 }));
    expect(changes(b)).toEqual([
      { side: BUY, price: 104, quantity: 1 },
      { side: SELL, price: 103, quantity: 0 },
    ]);
  });

  it('an amend to another price lowers the old level and raises the new one', () => {
    const b = book();
    const o = order({ price: 99, quantity: 2 });
    b.place(o);
    b.place(order({ user: 2, price: 99, quantity: 1 }));
    b.amend(1, o.orderId, 97, 2);
    expect(changes(b)).toEqual([
      { side: BUY, price: 99, quantity: 1 },
      { side: BUY, price: 97, quantity: 2 },
    ]);
    b.amend(1, o.orderId, 97, 1);
    expect(changes(b)).toEqual([{ side: BUY, price: 97, quantity: 1 }]);
  });

  it('a level dropped and rebuilt within one command is listed once, with its quantity now', () => {
    const b = book();
    const o = order({ price: 99, quantity: 2 });
    b.place(o);
    // Alone at 99, a larger amend drops the level and makes a new one at the same price.
    b.amend(1, o.orderId, 99, 5);
    expect(changes(b)).toEqual([{ side: BUY, price: 99, quantity: 5 }]);
  });

  it('cancel and cancelAll list the levels they lowered or emptied; CLOSE empties both sides', () => {
    const b = book();
    const a = order({ price: 99, quantity: 2 });
    b.place(a);
    b.place(order({ price: 98, quantity: 1 }));
    b.place(order({ user: 2, price: 98, quantity: 4 }));
    b.place(order({ side: SELL, price: 105, quantity: 1 }));
    b.place(order({ user: 2, side: SELL, price: 106, quantity: 1 }));
    b.cancel(1, a.orderId);
    expect(changes(b)).toEqual([{ side: BUY, price: 99, quantity: 0 }]);
    b.cancelAll(1);
    expect(changes(b)).toEqual([
      { side: BUY, price: 98, quantity: 4 },
      { side: SELL, price: 105, quantity: 0 },
    ]);
    b.setState(BookMarketState.HALT);
    expect(changes(b)).toEqual([]);
    b.setState(BookMarketState.CLOSE);
    expect(changes(b)).toEqual([
      { side: BUY, price: 98, quantity: 0 },
      { side: SELL, price: 106, quantity: 0 },
    ]);
  });

  it('a restored book starts with no changes and reports the next command as usual', () => {
    const b = new OrderBook();
    b.place(order({ price: 99, quantity: 2 }));
    const r = OrderBook.restore(b.snapshot());
    expect(r.levelChanges.count).toBe(0);
    r.place(order({ side: SELL, price: 99, quantity: 1 }));
    expect(r.levelChanges.toArray()).toEqual([{ side: BUY, price: 99, quantity: 1 }]);
    expect(() => r.levelChanges.price(1)).toThrow(RangeError);
  });
});
