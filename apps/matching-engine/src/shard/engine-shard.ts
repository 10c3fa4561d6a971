import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Bus, BusMessage, Subscription, TopicPartition } from '@perp/bus';
import { type EngineCommand, type EngineEvent, TOPICS } from '@perp/contracts';
import {
  BookMarketState,
  BookOrderType,
  BookSide,
  BookStpMode,
  BookTimeInForce,
  type Market,
  type MarketRegistry,
  Money,
  OrderBook,
} from '@perp/domain';
import type { EngineSnapshotRepository } from '@perp/persistence';

export type OrderCommand = Extract<
  EngineCommand,
  { type: 'order.place' | 'order.cancel' | 'order.cancelAll' | 'order.amend' | 'market.status' }
>;

export type ShardReply =
  { ok: true; result: unknown } | { ok: false; error: { code: number | string; msg: string } };

export interface EngineShardOptions {
  /** Snapshot a partition after this many commands (default 1000). */
  snapshotEvery?: number;
  /** ... or this long after the previous snapshot when it has unsaved commands (default 60 s). */
  snapshotIntervalMs?: number;
  /** Snapshots kept per partition (default 3). */
  keepSnapshots?: number;
}

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
class PartitionState {
  readonly books = new Map<string, SymbolBook>();
  readonly orderIds = new Map<string, number>();
  readonly orders = new Map<number, OrderInfo>();
  readonly userIds = new Map<string, number>();
  readonly users: string[] = [];
  nextOrderId = 1;
  /** Offset of the last input applied and whose output is published; -1 for none. */
  lastOffset = -1n;
  savedOffset = -1n;
  sinceSnapshot = 0;
  lastSnapshotAt = Date.now();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly partition: number) {}

  /** Runs `fn` after everything queued before it: handlers and snapshots never interleave. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn);
    this.chain = next.catch(() => undefined);
    return next;
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
      orders: [number, string, string, string][];
      books: (Omit<SymbolBook, 'book'> & { book: string })[];
    };
    if (s.v !== SNAPSHOT_VERSION) throw new Error(`unsupported engine snapshot version ${s.v}`);
    const p = new PartitionState(partition);
    p.lastOffset = p.savedOffset = BigInt(s.offset);
    p.nextOrderId = s.nextOrderId;
    for (const u of s.users) p.userId(u);
    for (const [id, uuid, clientOrderId, user] of s.orders) {
      p.orders.set(id, { uuid, clientOrderId, user });
      p.orderIds.set(uuid, id);
    }
    for (const b of s.books)
      p.books.set(b.symbol, { ...b, book: OrderBook.restore(new Uint8Array(Buffer.from(b.book, 'base64'))) });
    return p;
  }
}

/** A deterministic UUID (v5 layout) from an event id: a replay gives the trade the same id. */
export function deterministicUuid(name: string): string {
  const h = createHash('sha1').update(name).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
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
  private readonly logger = new Logger('engine-shard');
  private readonly partitions = new Map<number, PartitionState>();
  private readonly snapshotEvery: number;
  private readonly snapshotIntervalMs: number;
  private readonly keepSnapshots: number;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
    private readonly snapshots?: EngineSnapshotRepository,
    options: EngineShardOptions = {},
  ) {
    this.snapshotEvery = options.snapshotEvery ?? 1000;
    this.snapshotIntervalMs = options.snapshotIntervalMs ?? 60_000;
    this.keepSnapshots = options.keepSnapshots ?? 3;
    if (this.snapshots && this.snapshotIntervalMs > 0) {
      this.timer = setInterval(() => void this.snapshotDue(), Math.min(this.snapshotIntervalMs, 1000));
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  ownedPartitions(): number[] {
    return [...this.partitions.keys()].sort((a, b) => a - b);
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
  async assigned(partitions: TopicPartition[], sub: Subscription): Promise<void> {
    for (const tp of partitions) {
      if (tp.topic !== TOPICS.engineCommands.name) continue;
      const snap = await this.snapshots?.latest(tp.topic, tp.partition);
      let state = new PartitionState(tp.partition);
      if (snap) {
        try {
          state = PartitionState.deserialize(tp.partition, snap.state);
        } catch (e) {
          this.logger.error(
            `partition ${tp.partition}: bad snapshot at ${snap.offset}: ${(e as Error).message}`,
          );
          throw e;
        }
      }
      this.partitions.set(tp.partition, state);
      await sub.seek({ ...tp, offset: (state.lastOffset + 1n).toString() });
      if (snap) this.logger.log(`partition ${tp.partition}: restored at ${snap.offset}`);
    }
  }

  /** onRevoked: save what is unsaved (still a member on close) and drop the partitions' books. */
  async revoked(partitions: TopicPartition[]): Promise<void> {
    for (const tp of partitions) {
      const p = this.partitions.get(tp.partition);
      if (!p || tp.topic !== TOPICS.engineCommands.name) continue;
      this.partitions.delete(tp.partition);
      await p
        .run(() => this.snapshot(p))
        .catch((e: Error) => this.logger.warn(`final snapshot: ${e.message}`));
    }
  }

  /** Applies one command of an owned partition; publishes its events; returns the reply. */
  async handle(m: BusMessage, cmd: OrderCommand): Promise<ShardReply> {
    let p = this.partitions.get(m.partition);
    if (!p) {
      // Subscribed without onAssigned wiring (or the partition was never announced): start empty.
      p = new PartitionState(m.partition);
      this.partitions.set(m.partition, p);
    }
    const state = p;
    return state.run(async () => {
      const offset = BigInt(m.offset);
      if (offset <= state.lastOffset) return { ok: false, error: { code: -1000, msg: 'already applied' } };
      const [events, reply] = this.apply(state, m, cmd);
      for (const e of events) await this.bus.publish(TOPICS.engineEvents.name, e.symbol, e);
      state.lastOffset = offset;
      state.sinceSnapshot++;
      if (this.snapshots && state.sinceSnapshot >= this.snapshotEvery) await this.snapshot(state);
      return reply;
    });
  }

  /** Stores every owned partition now (tests, shutdown). */
  async snapshotAll(): Promise<void> {
    for (const p of this.partitions.values()) await p.run(() => this.snapshot(p));
  }

  private async snapshotDue(): Promise<void> {
    const now = Date.now();
    for (const p of this.partitions.values())
      if (p.sinceSnapshot > 0 && now - p.lastSnapshotAt >= this.snapshotIntervalMs)
        await p.run(() => this.snapshot(p)).catch((e: Error) => this.logger.warn(`snapshot: ${e.message}`));
  }

  private async snapshot(p: PartitionState): Promise<void> {
    if (!this.snapshots || p.lastOffset < 0n || p.lastOffset === p.savedOffset) return;
    const offset = p.lastOffset;
    const state = p.serialize();
    const topic = TOPICS.engineCommands.name;
    await this.snapshots.save({
      topic,
      partition: p.partition,
      offset: offset.toString(),
      state,
      version: SNAPSHOT_VERSION,
    });
    await this.snapshots.prune(topic, p.partition, this.keepSnapshots);
    p.savedOffset = offset;
    p.sinceSnapshot = 0;
    p.lastSnapshotAt = Date.now();
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
    if (!sb) return [[], { ok: false, error: { code: -1121, msg: `Invalid symbol ${cmd.symbol}.` } }];
    const { book } = sb;
    let reply: ShardReply;
    switch (cmd.type) {
      case 'order.place': {
        if (p.orderIds.has(cmd.orderId)) {
          return [[], { ok: false, error: { code: -2010, msg: 'Duplicate order id.' } }];
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
            : { ok: false, error: { code: -2011, msg: 'Unknown order sent.' } };
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
          : {
              ok: false,
              error: {
                code: ev && 'code' in ev ? ev.code : -2011,
                msg: ev && 'reason' in ev ? ev.reason : 'Unknown order sent.',
              },
            };
        break;
      }
      case 'market.status':
        book.setState(BookMarketState[cmd.status]);
        reply = { ok: true, result: { symbol: sb.symbol, status: cmd.status } };
        break;
    }
    return [this.events(p, sb, m, cmd), reply];
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
      if (e.kind === 'REJECTED') return { ok: false, error: { code: e.code, msg: e.reason } };
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
            code: e.code,
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
    maxLongOi: Math.floor(new Money(market.maxLongOi).div(market.lotSize).toNumber()),
    maxShortOi: Math.floor(new Money(market.maxShortOi).div(market.lotSize).toNumber()),
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

/** A decimal string in steps; a value off the step grid gives a fraction, which the book refuses. */
export function toSteps(value: string, step: string): number {
  const n = new Money(value).div(step);
  return n.isFinite() ? n.toNumber() : Number.NaN;
}

export function fromSteps(steps: number, step: string, decimals: number): string {
  return new Money(steps).times(step).toFixed(decimals);
}
