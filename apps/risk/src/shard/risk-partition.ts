import type { OrderRecord } from '@perp/contracts';
import { AccountBook, type AccountBookOptions } from '@perp/domain';
import { ShardPartition } from '@perp/infrastructure';

const SNAPSHOT_VERSION = 1;
/** Closed order records kept in memory to answer the command that closed them. */
const RECENTLY_CLOSED = 1000;

/**
 * Everything one risk-command partition owns: the accounts of its users (an AccountBook with its
 * own fee, insurance and clearing accounts), their open order records, and the high-water marks
 * of the engine events copied into it. Snapshotted together with the offset of the last input.
 */
export class RiskPartition extends ShardPartition {
  readonly orders = new Map<string, OrderRecord>();
  private readonly closed = new Map<string, OrderRecord>();
  /** Per engine-commands partition: the (offset, index) of the last engine-event copy applied. */
  readonly engineMarks = new Map<number, [bigint, number]>();

  constructor(
    partition: number,
    readonly book: AccountBook,
  ) {
    super(partition);
  }

  /** True when the copy at (offset, index) of engine partition `partition` is new here. */
  isNewEngineEvent(partition: number, offset: bigint, index: number): boolean {
    const mark = this.engineMarks.get(partition);
    return !mark || offset > mark[0] || (offset === mark[0] && index > mark[1]);
  }

  markEngineEvent(partition: number, offset: bigint, index: number): void {
    this.engineMarks.set(partition, [offset, index]);
  }

  openOrdersOf(user: string, symbol?: string): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (const o of this.orders.values())
      if (o.user === user && (symbol === undefined || o.symbol === symbol)) out.push(o);
    return out.sort((a, b) => a.time - b.time || a.orderId.localeCompare(b.orderId));
  }

  findOpen(user: string, orderId?: string, clientOrderId?: string): OrderRecord | undefined {
    if (orderId !== undefined) {
      const o = this.orders.get(orderId);
      return o?.user === user ? o : undefined;
    }
    if (clientOrderId === undefined) return undefined;
    for (const o of this.orders.values()) if (o.user === user && o.clientOrderId === clientOrderId) return o;
    return undefined;
  }

  /** The record of an order, open or recently closed. */
  record(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId) ?? this.closed.get(orderId);
  }

  close(record: OrderRecord): void {
    this.orders.delete(record.orderId);
    this.closed.set(record.orderId, record);
    if (this.closed.size > RECENTLY_CLOSED) this.closed.delete(this.closed.keys().next().value as string);
  }

  serialize(): Buffer {
    return Buffer.from(
      JSON.stringify({
        v: SNAPSHOT_VERSION,
        offset: this.lastOffset.toString(),
        book: this.book.toState(),
        orders: [...this.orders.values()],
        engineMarks: [...this.engineMarks].map(([p, [o, i]]) => [p, o.toString(), i]),
      }),
    );
  }

  static deserialize(partition: number, state: Buffer, options: AccountBookOptions): RiskPartition {
    const s = JSON.parse(state.toString('utf8')) as {
      v: number;
      offset: string;
      book: unknown;
      orders: OrderRecord[];
      engineMarks: [number, string, number][];
    };
    if (s.v !== SNAPSHOT_VERSION) throw new Error(`unsupported risk snapshot version ${s.v}`);
    const p = new RiskPartition(partition, AccountBook.fromState(s.book, options));
    for (const o of s.orders) p.orders.set(o.orderId, o);
    for (const [ep, o, i] of s.engineMarks) p.engineMarks.set(ep, [BigInt(o), i]);
    return p;
  }
}

export const RISK_SNAPSHOT_VERSION = SNAPSHOT_VERSION;
