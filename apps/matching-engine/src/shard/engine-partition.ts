import { BookMarketState, HighWaterMarks, type Market, OrderBook } from '@perp/domain';
import { ShardPartition } from '@perp/infrastructure';
import { wholeSteps } from './conversions';

export const ENGINE_SNAPSHOT_VERSION = 1;

/** One symbol's book with the market's steps, fixed when the book is created. */
export interface SymbolBook {
  symbol: string;
  book: OrderBook;
  tickSize: string;
  lotSize: string;
  pricePrecision: number;
  quantityPrecision: number;
  /**
   * The last `book.top` published, in steps (bid ticks, bid lots, ask ticks, ask lots; empty before
   * the first), so an unchanged top is not published again: compared without rendering it.
   */
  top: number[];
  /** `seq` of the last `book.delta` published (0: none yet): the next one's `prevSeq`. */
  prevSeq: number;
}

/** What the bus knows an interned order by. */
export interface OrderInfo {
  uuid: string;
  clientOrderId: string;
  user: string;
}

/** Where a forwarded command came from: a risk partition, its input offset, the command's index. */
export interface CommandOrigin {
  partition: number;
  offset: string;
  index?: number;
}

export function createSymbolBook(market: Market): SymbolBook {
  const book = new OrderBook({
    maxLongOi: wholeSteps(market.maxLongOi, market.lotSize),
    maxShortOi: wholeSteps(market.maxShortOi, market.lotSize),
    state: BookMarketState[market.status],
  });
  return {
    symbol: market.symbol,
    book,
    tickSize: market.tickSize,
    lotSize: market.lotSize,
    pricePrecision: market.pricePrecision,
    quantityPrecision: market.quantityPrecision,
    top: [],
    prevSeq: 0,
  };
}

/**
 * A symbol's ADL inputs: the latest scores each risk partition sent (user -> score; a user lives
 * in one risk partition) and the quantiles last published (JSON), so unchanged ones are not.
 */
export interface SymbolAdl {
  scores: Map<number, Map<string, string>>;
  quantiles: string;
}

/** The snapshot as JSON (version 1): the books as base64 of `OrderBook.snapshot()`. */
interface EngineSnapshotV1 {
  v: number;
  offset: string;
  nextOrderId: number;
  users: string[];
  origins?: [number, string, number?][];
  orders: [number, string, string, string][];
  /** `prevSeq` is absent from snapshots written before `book.delta` existed. */
  books: (Omit<SymbolBook, 'book' | 'prevSeq'> & { book: string; prevSeq?: number })[];
  /** Absent from snapshots written before ADL: [symbol, [risk partition, [user, score][]][], quantiles]. */
  adl?: [string, [number, [string, string][]][], string][];
}

/**
 * Everything one input partition owns: its symbols' books and the interning maps (order UUID and
 * user address <-> integer id, so the book never hashes strings). Snapshotted together with the
 * offset of the last applied input.
 */
export class EnginePartition extends ShardPartition {
  readonly books = new Map<string, SymbolBook>();
  readonly orderIds = new Map<string, number>();
  readonly orders = new Map<number, OrderInfo>();
  readonly userIds = new Map<string, number>();
  readonly users: string[] = [];
  nextOrderId = 1;
  /**
   * Per risk partition, the (offset, index) of the last forwarded command applied: the dedupe of
   * risk replays. The index orders several commands one risk input forwards (fired triggers).
   */
  origins = new HighWaterMarks();
  /** Per symbol, the ADL scores and the quantiles last published (see adl-scores.ts). */
  readonly adl = new Map<string, SymbolAdl>();

  /** The ADL state of a symbol, created empty on first use. */
  adlOf(symbol: string): SymbolAdl {
    let a = this.adl.get(symbol);
    if (!a) this.adl.set(symbol, (a = { scores: new Map(), quantiles: '' }));
    return a;
  }

  /** True when the forwarded command from `origin` was applied already. */
  seen(origin: CommandOrigin): boolean {
    return !this.origins.isNew(origin.partition, BigInt(origin.offset), origin.index);
  }

  /** Records the forwarded command from `origin` as applied. */
  markSeen(origin: CommandOrigin): void {
    this.origins.mark(origin.partition, BigInt(origin.offset), origin.index);
  }

  /** A new order's integer id, remembered with what the bus knows it by. */
  internOrder(info: OrderInfo): number {
    const id = this.nextOrderId++;
    this.orderIds.set(info.uuid, id);
    this.orders.set(id, info);
    return id;
  }

  /** Forgets an order that left the book: its UUID may not come back, its id is not reused. */
  forgetOrder(id: number): void {
    const info = this.orders.get(id);
    if (info) this.orderIds.delete(info.uuid);
    this.orders.delete(id);
  }

  userId(address: string): number {
    let id = this.userIds.get(address);
    if (id === undefined) {
      id = this.users.length + 1;
      this.users.push(address);
      this.userIds.set(address, id);
    }
    return id;
  }

  userAddress(id: number): string {
    return this.users[id - 1];
  }

  serialize(): Buffer {
    const snapshot: EngineSnapshotV1 = {
      v: ENGINE_SNAPSHOT_VERSION,
      offset: this.lastOffset.toString(),
      nextOrderId: this.nextOrderId,
      users: this.users,
      origins: this.origins.toState(),
      orders: [...this.orders].map(([id, o]) => [id, o.uuid, o.clientOrderId, o.user]),
      books: [...this.books.values()].map((b) => ({
        ...b,
        book: Buffer.from(b.book.snapshot()).toString('base64'),
      })),
      adl: [...this.adl].map(([symbol, a]) => [
        symbol,
        [...a.scores].map(([partition, scores]) => [partition, [...scores]]),
        a.quantiles,
      ]),
    };
    return Buffer.from(JSON.stringify(snapshot));
  }

  static deserialize(partition: number, state: Buffer): EnginePartition {
    const s = JSON.parse(state.toString('utf8')) as EngineSnapshotV1;
    if (s.v !== ENGINE_SNAPSHOT_VERSION) throw new Error(`unsupported engine snapshot version ${s.v}`);
    const p = new EnginePartition(partition);
    p.nextOrderId = s.nextOrderId;
    for (const u of s.users) p.userId(u);
    p.origins = HighWaterMarks.fromState(s.origins ?? []);
    for (const [id, uuid, clientOrderId, user] of s.orders) {
      p.orders.set(id, { uuid, clientOrderId, user });
      p.orderIds.set(uuid, id);
    }
    for (const b of s.books)
      p.books.set(b.symbol, {
        ...b,
        prevSeq: b.prevSeq ?? 0,
        book: OrderBook.restore(new Uint8Array(Buffer.from(b.book, 'base64'))),
      });
    for (const [symbol, scores, quantiles] of s.adl ?? [])
      p.adl.set(symbol, {
        scores: new Map(scores.map(([partition, list]) => [partition, new Map(list)])),
        quantiles,
      });
    return p;
  }
}
