import type { BookLevelChangeLog } from './level-changes';
import { OrderBook } from './order-book';
import { BookEventLog, OrderBookApi } from './order-book-api';
import { ReferenceOrderBook } from './reference-order-book';
import {
  BookLevel,
  BookMarketState,
  BookSide,
  NewBookOrder,
  OrderBookConfig,
  RestingBookOrder,
} from './types';

/**
 * Both implementations behind one OrderBookApi, for the unit suite: every command goes to the fast
 * OrderBook and to the ReferenceOrderBook, and every answer (return value, events, level changes, query) must be
 * the same on both or the call throws. The fast book's answer is returned, so an assertion on it
 * holds for both books.
 */
export class BookPair implements OrderBookApi {
  readonly fast: OrderBook;
  readonly reference: ReferenceOrderBook;

  constructor(config: OrderBookConfig = {}) {
    this.fast = new OrderBook(config);
    this.reference = new ReferenceOrderBook(config);
  }

  get events(): BookEventLog {
    return this.fast.events;
  }
  get levelChanges(): BookLevelChangeLog {
    this.agree('levelChanges', this.fast.levelChanges.toArray(), this.reference.levelChanges.toArray());
    return this.fast.levelChanges;
  }
  get state(): BookMarketState {
    return this.agree('state', this.fast.state, this.reference.state);
  }
  get seq(): number {
    return this.agree('seq', this.fast.seq, this.reference.seq);
  }
  get longOi(): number {
    return this.agree('longOi', this.fast.longOi, this.reference.longOi);
  }
  get shortOi(): number {
    return this.agree('shortOi', this.fast.shortOi, this.reference.shortOi);
  }
  get restingOrders(): number {
    return this.agree('restingOrders', this.fast.restingOrders, this.reference.restingOrders);
  }

  place(o: NewBookOrder): void {
    this.command('place', (b) => b.place(o));
  }
  cancel(user: number, orderId: number): boolean {
    return this.command('cancel', (b) => b.cancel(user, orderId));
  }
  cancelByClientId(user: number, clientOrderId: string): boolean {
    return this.command('cancelByClientId', (b) => b.cancelByClientId(user, clientOrderId));
  }
  cancelAll(user: number): number {
    return this.command('cancelAll', (b) => b.cancelAll(user));
  }
  amend(user: number, orderId: number, price: number, quantity: number): boolean {
    return this.command('amend', (b) => b.amend(user, orderId, price, quantity));
  }
  setState(state: BookMarketState): void {
    this.command('setState', (b) => b.setState(state));
  }
  deleverage(
    takerOrderId: number,
    user: number,
    makerOrderId: number,
    counterparty: number,
    lots: number,
    price: number,
  ): number {
    return this.command('deleverage', (b) =>
      b.deleverage(takerOrderId, user, makerOrderId, counterparty, lots, price),
    );
  }
  setOiCaps(maxLongOi: number, maxShortOi: number): void {
    this.command('setOiCaps', (b) => b.setOiCaps(maxLongOi, maxShortOi));
  }

  levelCount(side: BookSide): number {
    return this.query('levelCount', (b) => b.levelCount(side));
  }
  bestPrice(side: BookSide): number {
    return this.query('bestPrice', (b) => b.bestPrice(side));
  }
  bestQty(side: BookSide): number {
    return this.query('bestQty', (b) => b.bestQty(side));
  }
  position(user: number): number {
    return this.query('position', (b) => b.position(user));
  }
  positions(): Map<number, number> {
    return this.query('positions', (b) => b.positions());
  }
  order(orderId: number): RestingBookOrder | undefined {
    return this.query('order', (b) => b.order(orderId));
  }
  orderIdOf(user: number, clientOrderId: string): number | undefined {
    return this.query('orderIdOf', (b) => b.orderIdOf(user, clientOrderId));
  }
  openOrders(user: number): RestingBookOrder[] {
    return this.query('openOrders', (b) => b.openOrders(user));
  }
  ordersOf(side: BookSide): RestingBookOrder[] {
    return this.query('ordersOf', (b) => b.ordersOf(side));
  }
  levelQty(side: BookSide, price: number): number {
    return this.query('levelQty', (b) => b.levelQty(side, price));
  }
  depth(side: BookSide, maxLevels?: number): BookLevel[] {
    return this.query('depth', (b) => b.depth(side, maxLevels));
  }

  private command<T>(what: string, run: (b: OrderBookApi) => T): T {
    const result = this.query(what, run);
    this.agree(`${what} events`, this.fast.events.toArray(), this.reference.events.toArray());
    this.agree(
      `${what} level changes`,
      this.fast.levelChanges.toArray(),
      this.reference.levelChanges.toArray(),
    );
    return result;
  }

  private query<T>(what: string, run: (b: OrderBookApi) => T): T {
    return this.agree(what, run(this.fast), run(this.reference));
  }

  private agree<T>(what: string, fast: T, reference: T): T {
    const f = show(fast);
    const r = show(reference);
    if (f !== r) throw new Error(`${what}: OrderBook ${f} but ReferenceOrderBook ${r}`);
    return fast;
  }
}

/** Both books build their objects with the same keys in the same order, so JSON compares them. */
const show = (x: unknown) =>
  JSON.stringify(x instanceof Map ? [...x].sort(([a], [b]) => a - b) : x) ?? 'undefined';
