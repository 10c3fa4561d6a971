import type { Bus, BusMessage, Subscription, TopicPartition } from '@perp/bus';
import {
  deterministicUuid,
  type EngineCommand,
  type EngineEvent,
  type OiCapDetails,
  type OutcomeError,
  type OutcomeReason,
  TOPICS,
} from '@perp/contracts';
import {
  type BookEvent,
  BookMarketState,
  type BookRejectReason,
  BookOrderType,
  BookSide,
  BookStpMode,
  BookTimeInForce,
  type Market,
  type MarketRegistry,
  Money,
  OrderBook,
} from '@perp/domain';
import { ShardPartition, ShardPartitions, type SnapshotPolicy } from '@perp/infrastructure';
import type { EngineSnapshotRepository } from '@perp/persistence';

export type OrderCommand = Extract<
  EngineCommand,
  { type: 'order.place' | 'order.cancel' | 'order.cancelAll' | 'order.amend' | 'market.status' }
>;

export type ShardReply = { ok: true; result: unknown } | { ok: false; error: OutcomeError };

const ALREADY_APPLIED: ShardReply = {
  ok: false,
  error: { reason: 'ALREADY_APPLIED', msg: 'already applied' },
};

function refusal(reason: OutcomeReason, msg: string): ShardReply {
  return { ok: false, error: { reason, msg } };
}

/** What each refusal of the book means, for the reply's message. */
const BOOK_REFUSALS: Record<BookRejectReason, string> = {
  INVALID_ORDER: 'side, type, time in force or self-trade mode not valid for this order',
  INVALID_QUANTITY: 'quantity must be a whole number of lots up to the maximum order size',
  INVALID_PRICE: 'price must be a whole number of ticks within the book range',
  DUPLICATE_ORDER_ID: 'order id already in use',
  DUPLICATE_CLIENT_ORDER_ID: 'clientOrderId is used by an open order',
  MARKET_NOT_TRADING: 'market is not trading',
  POST_ONLY_WOULD_TAKE: 'post-only order would take liquidity',
  REDUCE_ONLY_REJECTED: 'reduce-only order has no position left to reduce',
  OI_CAP_EXCEEDED: 'order would raise open interest above its cap',
  UNKNOWN_ORDER: 'unknown order',
};

export type EngineShardOptions = SnapshotPolicy;

const SNAPSHOT_VERSION = 1;
const SIDE_NAMES = ['BUY', 'SELL'] as const;

/** One symbol's book with the market's steps, fixed when the book is created. */
interface SymbolBook {
  symbol: string;
  book: OrderBook;
  tickSize: string;
  lotSize: string;
  pricePrecision: number;
  quantityPrecision: number;
  top: string;
}

interface OrderInfo {
  uuid: string;
  clientOrderId: string;
  user: string;
}

/**
 * Everything one input partition owns: its symbols' books and the interning maps (order UUID and
 * user address <-> integer id). Snapshotted together with the offset of the last applied input.
 */
class PartitionState extends ShardPartition {
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
  readonly origins = new Map<number, [bigint, number]>();

  /** True when the forwarded command from `origin` was applied already. */
  seen(origin: { partition: number; offset: string; index?: number }): boolean {
    const mark = this.origins.get(origin.partition);
    if (!mark) return false;
    const offset = BigInt(origin.offset);
    return offset < mark[0] || (offset === mark[0] && (origin.index ?? 0) <= mark[1]);
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
    return Buffer.from(
      JSON.stringify({
        v: SNAPSHOT_VERSION,
        offset: this.lastOffset.toString(),
        nextOrderId: this.nextOrderId,
        users: this.users,
        origins: [...this.origins].map(([p, [o, i]]) => [p, o.toString(), i]),
        orders: [...this.orders].map(([id, o]) => [id, o.uuid, o.clientOrderId, o.user]),
        books: [...this.books.values()].map((b) => ({
          ...b,
          book: Buffer.from(b.book.snapshot()).toString('base64'),
        })),
      }),
    );
  }

  static deserialize(partition: number, state: Buffer): PartitionState {
    const s = JSON.parse(state.toString('utf8')) as {
      v: number;
      offset: string;
      nextOrderId: number;
      users: string[];
      origins?: [number, string, number?][];
      orders: [number, string, string, string][];
      books: (Omit<SymbolBook, 'book'> & { book: string })[];
    };
    if (s.v !== SNAPSHOT_VERSION) throw new Error(`unsupported engine snapshot version ${s.v}`);
    const p = new PartitionState(partition);
    p.nextOrderId = s.nextOrderId;
    for (const u of s.users) p.userId(u);
    for (const [partition, offset, index] of s.origins ?? [])
      p.origins.set(partition, [BigInt(offset), index ?? 0]);
    for (const [id, uuid, clientOrderId, user] of s.orders) {
      p.orders.set(id, { uuid, clientOrderId, user });
      p.orderIds.set(uuid, id);
    }
    for (const b of s.books)
      p.books.set(b.symbol, { ...b, book: OrderBook.restore(new Uint8Array(Buffer.from(b.book, 'base64'))) });
    return p;
  }
}

/**
 * The matching engine's state for the engine-command partitions this member owns: one OrderBook per
 * symbol, interning maps, snapshots. Decimal strings become integer ticks and lots here, once.
 *
 * Exactly-once output: a snapshot records the last input whose events were published. After a
 * restore the shard seeks to the next input and replays; inputs after the snapshot that were
 * already handled before a crash re-emit their events with the same deterministic ids
 * (`topic/partition/offset/index`, trade ids derived from them), and consumers drop duplicates by id.
 */
export class EngineShard {
  private readonly partitions: ShardPartitions<PartitionState>;

  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
    snapshots?: EngineSnapshotRepository,
    options: EngineShardOptions = {},
  ) {
    this.partitions = new ShardPartitions(
      TOPICS.engineCommands.name,
      SNAPSHOT_VERSION,
      {
        empty: (partition) => new PartitionState(partition),
        restore: (partition, state) => PartitionState.deserialize(partition, state),
      },
      snapshots,
      options,
    );
  }

  stop(): void {
    this.partitions.stop();
  }

  ownedPartitions(): number[] {
    return this.partitions.owned();
  }

  /** The book of a symbol, when this member owns its partition and the book exists. */
  book(symbol: string): OrderBook | undefined {
    for (const p of this.partitions.values()) {
      const b = p.books.get(symbol);
      if (b) return b.book;
    }
    return undefined;
  }

  /** onAssigned: restore each partition from its latest snapshot and seek past it. */
  assigned(partitions: TopicPartition[], sub: Subscription): Promise<void> {
    return this.partitions.assigned(partitions, sub);
  }

  /** onRevoked: save what is unsaved (still a member on close) and drop the partitions' books. */
  revoked(partitions: TopicPartition[]): Promise<void> {
    return this.partitions.revoked(partitions);
  }

  /** Applies one command of an owned partition; publishes its events; returns the reply. */
  async handle(m: BusMessage, cmd: OrderCommand): Promise<ShardReply> {
    const state = this.partitions.getOrCreate(m.partition);
    return state.run(async () => {
      const offset = BigInt(m.offset);
      if (offset <= state.lastOffset) return ALREADY_APPLIED;
      const origin = 'origin' in cmd ? cmd.origin : undefined;
      let events: EngineEvent[] = [];
      let reply: ShardReply = ALREADY_APPLIED;
      if (origin && state.seen(origin)) {
        // A risk shard replayed its input and forwarded this command again: applied already.
      } else {
        [events, reply] = this.apply(state, m, cmd);
        if (origin) {
          state.origins.set(origin.partition, [BigInt(origin.offset), origin.index ?? 0]);
          events.push(this.commandResult(state, m, cmd, reply, events.length));
        }
      }
      for (const e of events) await this.bus.publish(TOPICS.engineEvents.name, e.symbol, e);
      await this.partitions.applied(state, offset);
      return reply;
    });
  }

  /** Stores every owned partition now (tests, shutdown). */
  snapshotAll(): Promise<void> {
    return this.partitions.saveAll();
  }

  private bookFor(p: PartitionState, symbol: string): SymbolBook | undefined {
    const existing = p.books.get(symbol);
    if (existing) return existing;
    const market = this.markets.find(symbol);
    if (!market) return undefined;
    const b = createBook(market);
    p.books.set(market.symbol, b);
    return b;
  }

  private apply(p: PartitionState, m: BusMessage, cmd: OrderCommand): [EngineEvent[], ShardReply] {
    const sb = this.bookFor(p, cmd.symbol);
    if (!sb) return [[], refusal('INVALID_SYMBOL', `no market ${cmd.symbol}`)];
    const { book } = sb;
    let reply: ShardReply;
    switch (cmd.type) {
      case 'order.place': {
        if (p.orderIds.has(cmd.orderId)) {
          return [[], refusal('DUPLICATE_ORDER_ID', BOOK_REFUSALS.DUPLICATE_ORDER_ID)];
        }
        const id = p.nextOrderId++;
        p.orderIds.set(cmd.orderId, id);
        p.orders.set(id, { uuid: cmd.orderId, clientOrderId: cmd.clientOrderId, user: cmd.user });
        const type =
          cmd.orderType === 'MARKET'
            ? BookOrderType.MARKET
            : cmd.orderType === 'LIMIT'
              ? BookOrderType.LIMIT
              : -1;
        book.place({
          orderId: id,
          user: p.userId(cmd.user),
          side: BookSide[cmd.side],
          type: type as BookOrderType,
          timeInForce: BookTimeInForce[cmd.timeInForce],
          price: cmd.price === undefined ? 0 : toSteps(cmd.price, sb.tickSize),
          quantity: toSteps(cmd.quantity, sb.lotSize),
          reduceOnly: cmd.reduceOnly,
          stp: BookStpMode[cmd.selfTradePreventionMode],
          clientOrderId: cmd.clientOrderId,
        });
        reply = this.placeReply(p, sb, id, cmd);
        break;
      }
      case 'order.cancel': {
        const user = p.userIds.get(cmd.user) ?? 0;
        let ok: boolean;
        let before: ReturnType<OrderBook['order']>;
        let id: number | undefined;
        if (cmd.orderId !== undefined) {
          id = p.orderIds.get(cmd.orderId) ?? -1;
          before = book.order(id);
          ok = book.cancel(user, id);
        } else {
          id = book.orderIdOf(user, cmd.clientOrderId ?? '');
          before = id === undefined ? undefined : book.order(id);
          ok = book.cancelByClientId(user, cmd.clientOrderId ?? '');
        }
        reply =
          ok && before && id !== undefined
            ? { ok: true, result: this.orderView(p, sb, id, before, 'CANCELED') }
            : refusal('UNKNOWN_ORDER', BOOK_REFUSALS.UNKNOWN_ORDER);
        break;
      }
      case 'order.cancelAll': {
        const user = p.userIds.get(cmd.user);
        const n = user === undefined ? 0 : book.cancelAll(user);
        reply = {
          ok: true,
          result: { code: 200, msg: 'The operation of cancel all open order is done.', canceled: n },
        };
        break;
      }
      case 'order.amend': {
        const user = p.userIds.get(cmd.user) ?? 0;
        const id = p.orderIds.get(cmd.orderId) ?? -1;
        const ok = book.amend(user, id, toSteps(cmd.price, sb.tickSize), toSteps(cmd.quantity, sb.lotSize));
        const ev = book.events.count > 0 ? book.events.get(0) : undefined;
        reply = ok
          ? {
              ok: true,
              result: { orderId: cmd.orderId, symbol: sb.symbol, price: cmd.price, quantity: cmd.quantity },
            }
          : ev?.kind === 'AMEND_REJECTED'
            ? this.bookRefusal(sb, ev)
            : refusal('UNKNOWN_ORDER', BOOK_REFUSALS.UNKNOWN_ORDER);
        break;
      }
      case 'market.status':
        book.setState(BookMarketState[cmd.status]);
        reply = { ok: true, result: { symbol: sb.symbol, status: cmd.status } };
        break;
    }
    return [this.events(p, sb, m, cmd), reply];
  }

  /** The outcome of a command forwarded by risk, as the last of its events. */
  private commandResult(
    p: PartitionState,
    m: BusMessage,
    cmd: OrderCommand,
    reply: ShardReply,
    index: number,
  ): EngineEvent {
    const book = p.books.get(cmd.symbol)?.book;
    return {
      v: 1,
      id: `${m.topic}/${m.partition}/${m.offset}/${index}`,
      time: cmd.time,
      type: 'command.result',
      symbol: cmd.symbol,
      seq: book?.seq ?? 0,
      user: 'user' in cmd ? cmd.user : '',
      command: cmd.type as 'order.place' | 'order.cancel' | 'order.cancelAll' | 'order.amend',
      ...('orderId' in cmd && cmd.orderId !== undefined ? { orderId: cmd.orderId } : {}),
      ...('replyTo' in cmd && cmd.replyTo ? { replyTo: cmd.replyTo } : {}),
      ok: reply.ok,
      ...(reply.ok ? { result: reply.result } : { error: reply.error }),
    };
  }

  /** A refusal of the book as a reply; an open-interest refusal says which cap and by how much. */
  private bookRefusal(
    sb: SymbolBook,
    e: Extract<BookEvent, { kind: 'REJECTED' | 'CANCEL_REJECTED' | 'AMEND_REJECTED' }>,
  ): ShardReply {
    const error: OutcomeError = { reason: e.reason, msg: BOOK_REFUSALS[e.reason] };
    if (e.reason === 'OI_CAP_EXCEEDED') {
      const market = this.markets.find(sb.symbol);
      if (market) error.details = oiCapDetails(sb, market, e.side, sb.book.position(e.user), e.qty);
    }
    return { ok: false, error };
  }

  private placeReply(
    p: PartitionState,
    sb: SymbolBook,
    id: number,
    cmd: Extract<OrderCommand, { type: 'order.place' }>,
  ): ShardReply {
    const ev = sb.book.events;
    let executed = 0;
    let status = 'NEW';
    for (let i = 0; i < ev.count; i++) {
      const e = ev.get(i);
      if (e.kind === 'REJECTED') return this.bookRefusal(sb, e);
      if (e.kind === 'FILL') executed += e.qty;
      if (e.kind === 'EXPIRED' && e.orderId === id) status = 'EXPIRED';
    }
    const open = sb.book.order(id);
    if (status !== 'EXPIRED') status = open ? (executed > 0 ? 'PARTIALLY_FILLED' : 'NEW') : 'FILLED';
    return {
      ok: true,
      result: {
        orderId: cmd.orderId,
        clientOrderId: cmd.clientOrderId,
        symbol: sb.symbol,
        side: cmd.side,
        type: cmd.orderType,
        timeInForce: cmd.timeInForce,
        price: cmd.price ?? '0',
        origQty: cmd.quantity,
        executedQty: fromSteps(executed, sb.lotSize, sb.quantityPrecision),
        status,
      },
    };
  }

  private orderView(
    p: PartitionState,
    sb: SymbolBook,
    id: number,
    o: { side: number; price: number; quantity: number },
    status: string,
  ): Record<string, unknown> {
    const info = p.orders.get(id);
    return {
      orderId: info?.uuid,
      clientOrderId: info?.clientOrderId,
      symbol: sb.symbol,
      side: SIDE_NAMES[o.side],
      price: fromSteps(o.price, sb.tickSize, sb.pricePrecision),
      remaining: fromSteps(o.quantity, sb.lotSize, sb.quantityPrecision),
      status,
    };
  }

  /** The book's events of the command as engine events, ids from the input's position. */
  private events(p: PartitionState, sb: SymbolBook, m: BusMessage, cmd: OrderCommand): EngineEvent[] {
    const out: EngineEvent[] = [];
    const base = { v: 1 as const, time: cmd.time, symbol: sb.symbol };
    const px = (t: number): string => fromSteps(t, sb.tickSize, sb.pricePrecision);
    const qty = (l: number): string => fromSteps(l, sb.lotSize, sb.quantityPrecision);
    const gone: number[] = [];
    const ev = sb.book.events;
    for (let i = 0; i < ev.count; i++) {
      const e = ev.get(i);
      const id = `${m.topic}/${m.partition}/${m.offset}/${i}`;
      const order = (orderId: number) => {
        const info = p.orders.get(orderId);
        return {
          orderId: info?.uuid ?? String(orderId),
          clientOrderId: info?.clientOrderId ?? '',
          user: info?.user ?? ('user' in e ? p.userAddress(e.user) : '') ?? '',
        };
      };
      switch (e.kind) {
        case 'ACCEPTED':
          out.push({
            ...base,
            id,
            seq: e.seq,
            type: 'order.accepted',
            ...order(e.orderId),
            side: SIDE_NAMES[e.side],
            price: px(e.price),
            quantity: qty(e.qty),
          });
          break;
        case 'REJECTED':
        case 'CANCEL_REJECTED':
        case 'AMEND_REJECTED': {
          const known = p.orders.get(e.orderId);
          out.push({
            ...base,
            id,
            seq: e.seq,
            type: 'order.rejected',
            orderId: known?.uuid ?? ('orderId' in cmd && cmd.orderId ? cmd.orderId : ''),
            clientOrderId:
              known?.clientOrderId ?? ('clientOrderId' in cmd && cmd.clientOrderId ? cmd.clientOrderId : ''),
            user: 'user' in cmd ? cmd.user : '',
            reason: e.reason,
          });
          if (e.kind === 'REJECTED') gone.push(e.orderId);
          break;
        }
        case 'CANCELED':
          out.push({
            ...base,
            id,
            seq: e.seq,
            type: 'order.canceled',
            ...order(e.orderId),
            remaining: qty(e.qty),
          });
          gone.push(e.orderId);
          break;
        case 'EXPIRED':
          out.push({
            ...base,
            id,
            seq: e.seq,
            type: 'order.expired',
            ...order(e.orderId),
            remaining: qty(e.qty),
            reason: e.reason,
          });
          gone.push(e.orderId);
          break;
        case 'AMENDED':
          out.push({
            ...base,
            id,
            seq: e.seq,
            type: 'order.amended',
            ...order(e.orderId),
            price: px(e.price),
            quantity: qty(e.qty),
          });
          break;
        case 'FILL': {
          const side = (s: typeof e.taker) => ({
            orderId: p.orders.get(s.orderId)?.uuid ?? String(s.orderId),
            user: p.userAddress(s.user),
            side: SIDE_NAMES[s.side],
            split: { open: qty(s.open), close: qty(s.close) },
          });
          out.push({
            ...base,
            id,
            seq: e.seq,
            type: 'trade',
            tradeId: deterministicUuid(id),
            price: px(e.price),
            qty: qty(e.qty),
            maker: side(e.maker),
            taker: side(e.taker),
          });
          if (e.maker.leaves === 0) gone.push(e.maker.orderId);
          if (e.taker.leaves === 0) gone.push(e.taker.orderId);
          break;
        }
        case 'MARKET_STATE':
          out.push({ ...base, id, seq: e.seq, type: 'market.status', status: e.state });
          break;
      }
    }
    // Orders that left the book no longer need their UUID mapping.
    for (const o of gone) {
      if (sb.book.order(o)) continue;
      const info = p.orders.get(o);
      if (info) p.orderIds.delete(info.uuid);
      p.orders.delete(o);
    }
    const b = sb.book;
    const top = {
      bidPrice: px(b.bestQty(BookSide.BUY) > 0 ? b.bestPrice(BookSide.BUY) : 0),
      bidQty: qty(b.bestQty(BookSide.BUY)),
      askPrice: px(b.bestQty(BookSide.SELL) > 0 ? b.bestPrice(BookSide.SELL) : 0),
      askQty: qty(b.bestQty(BookSide.SELL)),
    };
    const key = JSON.stringify(top);
    if (key !== sb.top) {
      sb.top = key;
      out.push({
        ...base,
        id: `${m.topic}/${m.partition}/${m.offset}/${ev.count}`,
        seq: b.seq,
        type: 'book.top',
        ...top,
      });
    }
    return out;
  }
}

function createBook(market: Market): SymbolBook {
  const book = new OrderBook({
    maxLongOi: lotsOf(market.maxLongOi, market.lotSize),
    maxShortOi: lotsOf(market.maxShortOi, market.lotSize),
    state: BookMarketState[market.status],
  });
  return {
    symbol: market.symbol,
    book,
    tickSize: market.tickSize,
    lotSize: market.lotSize,
    pricePrecision: market.pricePrecision,
    quantityPrecision: market.quantityPrecision,
    top: '',
  };
}

/**
 * Which cap an opening order hits: the book checks both sides with the order's quantity that does
 * not close the user's own position (long and short interest move together in a perpetual). The
 * order's own side is reported when it is over, else the other side (caps may differ).
 */
function oiCapDetails(
  sb: SymbolBook,
  market: Market,
  side: BookSide,
  position: number,
  qty: number,
): OiCapDetails {
  const closable = side === BookSide.BUY ? Math.max(-position, 0) : Math.max(position, 0);
  const delta = qty - closable;
  const oi = { long: sb.book.longOi, short: sb.book.shortOi };
  const caps = { long: lotsOf(market.maxLongOi, sb.lotSize), short: lotsOf(market.maxShortOi, sb.lotSize) };
  const own = side === BookSide.BUY ? 'long' : 'short';
  const other = own === 'long' ? 'short' : 'long';
  const over = (s: 'long' | 'short') => oi[s] + delta > caps[s];
  const pick = over(own) || !over(other) ? own : other;
  const base = (lots: number) => new Money(lots).times(sb.lotSize).toFixed();
  return { side: pick, current: base(oi[pick]), cap: base(caps[pick]), requestedDelta: base(delta) };
}

/** A cap in whole lots, as the book holds it. */
function lotsOf(value: string, lotSize: string): number {
  return Math.floor(new Money(value).div(lotSize).toNumber());
}

/** A decimal string in steps; a value off the step grid gives a fraction, which the book refuses. */
export function toSteps(value: string, step: string): number {
  const n = new Money(value).div(step);
  return n.isFinite() ? n.toNumber() : Number.NaN;
}

export function fromSteps(steps: number, step: string, decimals: number): string {
  return new Money(steps).times(step).toFixed(decimals);
}
