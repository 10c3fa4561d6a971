import type { AlgoOrderRecord, OrderRecord, RiskCommand } from '@perp/contracts';
import {
  AccountBook,
  type AccountBookOptions,
  HighWaterMarks,
  type MarketRegistry,
  type HighWaterMarkState,
  Money,
  OrderCounter,
  TriggerBook,
  type TriggerEntry,
  type TriggerOrderType,
} from '@perp/domain';
import { ShardPartition, SnapshotText } from '@perp/infrastructure';
import { AlgoBook, type SerializedAlgo } from './algo-book';
import { type MarketStatesState, PartitionMarkets } from './partition-markets';

const SNAPSHOT_VERSION = 5;
/**
 * Version 1 snapshots have no trigger orders, version 2 no algo orders, version 3 no liquidations
 * or margin calls, version 4 no market states or account times; they restore as such.
 */
const READABLE_VERSIONS = [1, 2, 3, 4, 5];

/** A liquidation order sent to the engine and not done yet (its `liquidation.done` ends it). */
export interface LiquidationInFlight {
  liquidationId: string;
  user: string;
  symbol: string;
  marginMode: 'CROSS' | 'ISOLATED';
  side: 'BUY' | 'SELL';
  quantity: string;
  bankruptcyPrice: string;
  limitPrice: string;
  /** What the partition's insurance share may pay on it (fills beyond the bankruptcy price). */
  reserve: string;
  time: number;
  /** Clearance fees charged so far, and the fills (book and ADL) of the liquidated side. */
  fee: string;
  executedQty: string;
  cumQuote: string;
  updateTime: number;
}
/** A trigger order waiting for the mark price: the New Order command it fires as (quantity fixed). */
export interface WaitingTrigger extends TriggerEntry {
  user: string;
  command: Extract<RiskCommand, { type: 'order.new' }> & { orderType: TriggerOrderType };
  /** Set when the waiting order is an algo order's (its state is in the partition's AlgoBook). */
  algoId?: number;
}

/** The waiting book, counting per user and symbol the /fapi/v1/order triggers (algo ones are counted by the AlgoBook). */
class WaitingTriggers extends TriggerBook<WaitingTrigger> {
  readonly counts = new OrderCounter();

  override add(entry: WaitingTrigger): void {
    super.add(entry);
    if (entry.algoId === undefined) this.counts.add(OrderCounter.key(entry.user, entry.symbol));
  }

  override remove(orderId: string): WaitingTrigger | undefined {
    const e = super.remove(orderId);
    if (e) this.uncount(e);
    return e;
  }

  override fire(symbol: string, mark: Money): WaitingTrigger[] {
    const fired = super.fire(symbol, mark);
    for (const e of fired) this.uncount(e);
    return fired;
  }

  private uncount(e: WaitingTrigger): void {
    if (e.algoId === undefined) this.counts.remove(OrderCounter.key(e.user, e.symbol));
  }
}

type SerializedTrigger = Omit<WaitingTrigger, 'stopPrice'> & { stopPrice: string };

/** Closed order records kept in memory to answer the command that closed them. */
const RECENTLY_CLOSED = 1000;

/**
 * Everything one risk-command partition owns: the accounts of its users (an AccountBook with its
 * own fee, insurance and clearing accounts), their open order records, the high-water marks of the
 * engine events copied into it and the market statuses its log has. Snapshotted together with the
 * offset of the last input.
 */
export class RiskPartition extends ShardPartition {
  /** Open order records by id, and by user: account writes and client-id checks read one user's. */
  private readonly orders = new Map<string, OrderRecord>();
  private readonly ordersByUser = new Map<string, Map<string, OrderRecord>>();
  private readonly closed = new Map<string, OrderRecord>();
  /**
   * The ids of `closed` in its insertion order, oldest at `closedHead`: the oldest is evicted
   * without iterating the map, whose first entries are the deleted ones it would skip one by one.
   */
  private closedIds: string[] = [];
  private closedHead = 0;
  private readonly recordText = new WeakMap<OrderRecord, string>();
  /** Trigger orders not fired yet; their records are in `orders` too (open, NEW). */
  readonly triggers = new WaitingTriggers();
  /** Open order records per user and symbol (market's maxOpenOrders). */
  private readonly openCounts = new OrderCounter();
  /** Per symbol, the funding time of the last funding round applied (a copy at or before it is dropped). */
  readonly fundingTimes = new Map<string, number>();
  /** Per symbol, the last `adl.scores` list sent (JSON), so an unchanged one is not sent again. */
  readonly adlSent = new Map<string, string>();
  /** Liquidations in flight by id: their positions are not liquidated again until done. */
  readonly liquidations = new Map<string, LiquidationInFlight>();
  /** Margin states at or above the margin-call level (`user`, or `user|symbol` when isolated). */
  readonly marginCalls = new Set<string>();
  /**
   * Per user, the time of the input that last changed the account: its projection's update time,
   * written again as it was when a restored partition rewrites the projections.
   */
  readonly accountTimes = new Map<string, number>();

  constructor(
    partition: number,
    /** The markets with the statuses this partition's log has; `book` must look markets up here. */
    readonly markets: PartitionMarkets,
    readonly book: AccountBook,
    /** Per engine-commands partition: the (offset, index) of the last engine-event copy applied. */
    readonly engineMarks = new HighWaterMarks(),
    readonly algos = new AlgoBook(),
  ) {
    super(partition);
  }

  /** An empty partition: its account book looks markets up in the partition's own view. */
  static empty(partition: number, registry: MarketRegistry, options: PartitionBookOptions): RiskPartition {
    const markets = new PartitionMarkets(registry);
    return new RiskPartition(partition, markets, new AccountBook(bookOptionsOf(markets, options)));
  }

  openOrdersOf(user: string, symbol?: string): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (const o of this.ordersByUser.get(user)?.values() ?? [])
      if (symbol === undefined || o.symbol === symbol) out.push(o);
    return out.sort((a, b) => a.time - b.time || a.orderId.localeCompare(b.orderId));
  }

  /** The user's open order records, in no particular order (openOrdersOf sorts them). */
  openRecordsOf(user: string): Iterable<OrderRecord> {
    return this.ordersByUser.get(user)?.values() ?? [];
  }

  /** An open order's record. */
  openOrder(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId);
  }

  /** Open orders (algo orders waiting included) of the user on the symbol: maxOpenOrders counts these. */
  openOrderCount(user: string, symbol: string): number {
    const key = OrderCounter.key(user, symbol);
    return this.openCounts.count(key) + this.algos.waiting.count(key);
  }

  /** Waiting trigger orders (algo and /fapi/v1/order ones) of the user on the symbol: maxAlgoOrders counts these. */
  waitingTriggerCount(user: string, symbol: string): number {
    const key = OrderCounter.key(user, symbol);
    return this.triggers.counts.count(key) + this.algos.waiting.count(key);
  }

  /** Adds or replaces an open order's record. */
  put(record: OrderRecord): void {
    if (!this.orders.has(record.orderId)) this.openCounts.add(OrderCounter.key(record.user, record.symbol));
    this.orders.set(record.orderId, record);
    let mine = this.ordersByUser.get(record.user);
    if (!mine) this.ordersByUser.set(record.user, (mine = new Map()));
    mine.set(record.orderId, record);
  }

  findOpen(user: string, orderId?: string, clientOrderId?: string): OrderRecord | undefined {
    if (orderId !== undefined) {
      const o = this.orders.get(orderId);
      return o?.user === user ? o : undefined;
    }
    if (clientOrderId === undefined) return undefined;
    for (const o of this.ordersByUser.get(user)?.values() ?? [])
      if (o.clientOrderId === clientOrderId) return o;
    return undefined;
  }

  /** The record of an order, open or recently closed. */
  record(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId) ?? this.closed.get(orderId);
  }

  close(record: OrderRecord): void {
    if (this.orders.delete(record.orderId))
      this.openCounts.remove(OrderCounter.key(record.user, record.symbol));
    const mine = this.ordersByUser.get(record.user);
    mine?.delete(record.orderId);
    if (mine?.size === 0) this.ordersByUser.delete(record.user);
    this.keepClosed(record);
  }

  private keepClosed(record: OrderRecord): void {
    if (!this.closed.has(record.orderId)) this.closedIds.push(record.orderId);
    this.closed.set(record.orderId, record);
    if (this.closed.size <= RECENTLY_CLOSED) return;
    this.closed.delete(this.closedIds[this.closedHead++]!);
    if (this.closedHead >= RECENTLY_CLOSED) {
      this.closedIds = this.closedIds.slice(this.closedHead);
      this.closedHead = 0;
    }
  }

  /** A liquidation of the user in flight: any for a cross account, the symbol's when isolated. */
  inLiquidation(user: string, symbol?: string): boolean {
    for (const l of this.liquidations.values())
      if (l.user === user && (symbol === undefined || l.marginMode === 'CROSS' || l.symbol === symbol))
        return true;
    return false;
  }

  serialize(): Buffer {
    const rest = JSON.stringify({
      v: SNAPSHOT_VERSION,
      offset: this.lastOffset.toString(),
      book: this.book.toState(),
      engineMarks: this.engineMarks.toState(),
      triggers: this.triggers
        .entries()
        .map((t): SerializedTrigger => ({ ...t, stopPrice: t.stopPrice.toFixed() })),
      algos: this.algos.toState(),
      ...(this.fundingTimes.size ? { fundingTimes: Object.fromEntries(this.fundingTimes) } : {}),
      ...(this.adlSent.size ? { adlSent: Object.fromEntries(this.adlSent) } : {}),
      ...(this.liquidations.size ? { liquidations: [...this.liquidations.values()] } : {}),
      ...(this.marginCalls.size ? { marginCalls: [...this.marginCalls] } : {}),
      marketStates: this.markets.toState(),
      ...(this.accountTimes.size ? { accountTimes: Object.fromEntries(this.accountTimes) } : {}),
    });
    // The records (a thousand recently closed ones: most of the snapshot) as text kept per record.
    // New Order refuses the id of a recently closed order: a restored partition must too.
    const json = (r: OrderRecord) => this.recordJson(r);
    return new SnapshotText()
      .add(`${rest.slice(0, -1)},"orders":`)
      .addArray(this.orders.values(), json)
      .add(',"closed":')
      .addArray(this.closed.values(), json)
      .add('}')
      .toBuffer();
  }

  /**
   * A record's JSON, made once: a record is replaced when it changes, never changed in place, so a
   * snapshot serializes only the records new since the last one, and a closed record's text is
   * the one its hot-store entry was written with.
   */
  recordJson(r: OrderRecord): string {
    let text = this.recordText.get(r);
    if (text === undefined) this.recordText.set(r, (text = JSON.stringify(r)));
    return text;
  }

  static deserialize(
    partition: number,
    state: Buffer,
    registry: MarketRegistry,
    options: PartitionBookOptions,
  ): RiskPartition {
    const s = JSON.parse(state.toString('utf8')) as {
      v: number;
      offset: string;
      book: unknown;
      orders: OrderRecord[];
      closed?: OrderRecord[];
      engineMarks: HighWaterMarkState[];
      triggers?: SerializedTrigger[];
      algos?: { live: SerializedAlgo[]; ended: AlgoOrderRecord[] };
      fundingTimes?: Record<string, number>;
      adlSent?: Record<string, string>;
      liquidations?: LiquidationInFlight[];
      marginCalls?: string[];
      marketStates?: MarketStatesState;
      accountTimes?: Record<string, number>;
    };
    if (!READABLE_VERSIONS.includes(s.v)) throw new Error(`unsupported risk snapshot version ${s.v}`);
    const marks = HighWaterMarks.fromState(s.engineMarks);
    const markets = new PartitionMarkets(registry);
    markets.restore(s.marketStates);
    const p = new RiskPartition(
      partition,
      markets,
      AccountBook.fromState(s.book, bookOptionsOf(markets, options)),
      marks,
      AlgoBook.fromState(s.algos),
    );
    for (const o of s.orders) p.put(o);
    for (const o of s.closed ?? []) p.keepClosed(o);
    for (const t of s.triggers ?? []) p.triggers.add({ ...t, stopPrice: new Money(t.stopPrice) });
    for (const [symbol, time] of Object.entries(s.fundingTimes ?? {})) p.fundingTimes.set(symbol, time);
    for (const [symbol, sent] of Object.entries(s.adlSent ?? {})) p.adlSent.set(symbol, sent);
    for (const l of s.liquidations ?? []) p.liquidations.set(l.liquidationId, l);
    for (const key of s.marginCalls ?? []) p.marginCalls.add(key);
    for (const [user, time] of Object.entries(s.accountTimes ?? {})) p.accountTimes.set(user, time);
    return p;
  }
}

/** An account book's options but its market lookups, which are the partition's own. */
export type PartitionBookOptions = Omit<AccountBookOptions, 'markets'>;

/** `options` with market lookups in the partition's view (statuses as its log has them). */
function bookOptionsOf(markets: PartitionMarkets, options: PartitionBookOptions): AccountBookOptions {
  return { ...options, markets: (s) => markets.find(s) };
}

export const RISK_SNAPSHOT_VERSION = SNAPSHOT_VERSION;
