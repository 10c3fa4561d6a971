import { Injectable } from '@nestjs/common';
import type { OrderRecord } from '@perp/contracts';
import {
  type IncomeEntity,
  IncomeRepository,
  type IncomeType,
  OrderEntity,
  OrderRepository,
  TradeEntity,
  TradeRepository,
} from '@perp/persistence';
import { type AccountSnapshot, AccountReader } from './account-reader';
import { HistoryFreshness } from './history-freshness';
import { isOpenStatus, orderEntityView, orderView, type OrderView } from './order-view';

/** Whose history: the user row and the wallet address (the account-event key). */
export interface HistoryOwner {
  userId: string;
  address: string;
}

/** Which order: by id, else by client id (GET order, openOrder). */
export type OrderRef = { orderId: string } | { clientOrderId: string };

export interface AllOrdersQuery {
  symbol: string;
  /** Orders placed at or after this one (by time, then id). */
  orderId?: string;
  startTime?: number;
  endTime?: number;
  limit: number;
}

export interface UserTradesQuery {
  symbol: string;
  /** Trades at or after this one (by time, then id). */
  fromId?: string;
  startTime?: number;
  endTime?: number;
  limit: number;
}

export interface IncomeQuery {
  symbol?: string;
  incomeType?: IncomeType;
  startTime?: number;
  endTime?: number;
  limit: number;
}

function matches(o: OrderRecord, symbol: string, ref: OrderRef): boolean {
  if (o.symbol !== symbol) return false;
  return 'orderId' in ref ? o.orderId === ref.orderId : o.clientOrderId === ref.clientOrderId;
}

const byTimeThenId = (a: OrderView, b: OrderView) =>
  a.time - b.time || (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0);

/**
 * Order, trade and income queries. Live state (open orders, orders closed in the last minute) comes
 * from the hot store, which the risk shards write before answering; history from Postgres, which
 * a projector fills asynchronously, so the hot records win over a lagging row.
 */
@Injectable()
export class AccountHistory {
  constructor(
    private readonly reader: AccountReader,
    private readonly orders: OrderRepository,
    private readonly trades: TradeRepository,
    private readonly income: IncomeRepository,
    private readonly freshness: HistoryFreshness,
  ) {}

  /** An open order of the caller on `symbol` (GET /fapi/v1/openOrder). */
  openOrder(snapshot: AccountSnapshot, symbol: string, ref: OrderRef): OrderView | undefined {
    const open = snapshot.orders.find((o) => matches(o, symbol, ref));
    return open && orderView(open);
  }

  /** GET /fapi/v1/order: the open orders, then the closed-order hot record, then Postgres. */
  async findOrder(
    snapshot: AccountSnapshot,
    userId: string,
    symbol: string,
    ref: OrderRef,
  ): Promise<OrderView | undefined> {
    const open = this.openOrder(snapshot, symbol, ref);
    if (open) return open;
    if ('orderId' in ref) {
      const closed = await this.reader.closedOrder(ref.orderId, snapshot.address);
      if (closed) return closed.symbol === symbol ? orderView(closed) : undefined;
      await this.freshness.caughtUp(snapshot.address);
      const row = await this.orders.findForUser(userId, ref.orderId);
      return row && row.symbol === symbol ? orderEntityView(row) : undefined;
    }
    // The closed-order key is by order id: find the row, then prefer its fresher hot record.
    await this.freshness.caughtUp(snapshot.address);
    const row = await this.orders.findByClientOrderId(userId, symbol, ref.clientOrderId);
    if (!row) return undefined;
    const closed = await this.reader.closedOrder(row.id, snapshot.address);
    return closed ? orderView(closed) : orderEntityView(row);
  }

  /**
   * GET /fapi/v1/allOrders, oldest first. With orderId: the first `limit` orders placed at or
   * after it (by time, then id). Else with startTime: the first `limit` orders updated in the
   * window; else the latest `limit` updated in it. Open orders come from the live account, and a
   * row that is open in Postgres but no longer in the account is replaced by its closed record.
   */
  async allOrders(snapshot: AccountSnapshot, userId: string, q: AllOrdersQuery): Promise<OrderView[]> {
    await this.freshness.caughtUp(snapshot.address);
    const inWindow = (o: OrderView) =>
      (q.startTime === undefined || o.updateTime >= q.startTime) &&
      (q.endTime === undefined || o.updateTime <= q.endTime);
    let rows: OrderEntity[];
    let keep: (o: OrderView) => boolean = inWindow;
    let select: (a: OrderView, b: OrderView) => number;
    if (q.orderId !== undefined) {
      const ref = await this.findOrder(snapshot, userId, q.symbol, { orderId: q.orderId });
      if (!ref) return [];
      const qb = this.orders.manager
        .getRepository(OrderEntity)
        .createQueryBuilder('o')
        .where('o.user_id = :userId', { userId })
        .andWhere('o.symbol = :symbol', { symbol: q.symbol })
        .andWhere('(o.created_at, o.id) >= (:time, :id)', { time: ref.time, id: ref.orderId });
      if (q.startTime !== undefined) qb.andWhere('o.updated_at >= :startTime', q);
      if (q.endTime !== undefined) qb.andWhere('o.updated_at <= :endTime', q);
      rows = await qb.orderBy('o.created_at', 'ASC').addOrderBy('o.id', 'ASC').limit(q.limit).getMany();
      keep = (o) => inWindow(o) && byTimeThenId(o, ref) >= 0;
      select = byTimeThenId;
    } else {
      const ascending = q.startTime !== undefined;
      rows = await this.orders.listByUser(userId, {
        symbol: q.symbol,
        startTime: q.startTime,
        endTime: q.endTime,
        limit: q.limit,
        order: ascending ? 'asc' : 'desc',
      });
      const byUpdate = (a: OrderView, b: OrderView) =>
        a.updateTime - b.updateTime || (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0);
      select = ascending ? byUpdate : (a, b) => byUpdate(b, a);
    }
    const merged = new Map<string, OrderView>();
    const openIds = new Set(snapshot.orders.map((o) => o.orderId));
    const refreshed = await Promise.all(
      rows.map(async (row) =>
        isOpenStatus(row.status) && !openIds.has(row.id)
          ? ((await this.reader.closedOrder(row.id, snapshot.address)) ?? row)
          : row,
      ),
    );
    for (const r of refreshed) {
      const view = r instanceof OrderEntity ? orderEntityView(r) : orderView(r);
      merged.set(view.orderId, view);
    }
    for (const o of snapshot.orders) if (o.symbol === q.symbol) merged.set(o.orderId, orderView(o));
    return [...merged.values()].filter(keep).sort(select).slice(0, q.limit).sort(byTimeThenId);
  }

  /**
   * GET /fapi/v1/userTrades, oldest first. With fromId: the first `limit` trades at or after that
   * trade (by time, then id); else with startTime: the first `limit` in the window; else the
   * latest `limit` in it.
   */
  async userTrades({ userId, address }: HistoryOwner, q: UserTradesQuery): Promise<TradeEntity[]> {
    await this.freshness.caughtUp(address);
    if (q.fromId !== undefined) {
      const repo = this.trades.manager.getRepository(TradeEntity);
      const ref = await repo.findOne({ where: { userId, id: q.fromId }, order: { time: 'ASC' } });
      if (!ref) return [];
      const qb = repo
        .createQueryBuilder('t')
        .where('t.user_id = :userId', { userId })
        .andWhere('t.symbol = :symbol', { symbol: q.symbol })
        .andWhere('(t.time, t.id) >= (:time, :id)', { time: ref.time, id: ref.id });
      if (q.startTime !== undefined) qb.andWhere('t.time >= :startTime', q);
      if (q.endTime !== undefined) qb.andWhere('t.time <= :endTime', q);
      return qb
        .orderBy('t.time', 'ASC')
        .addOrderBy('t.id', 'ASC')
        .addOrderBy('t.order_id', 'ASC')
        .limit(q.limit)
        .getMany();
    }
    const ascending = q.startTime !== undefined;
    const rows = await this.trades.listByUser(userId, {
      symbol: q.symbol,
      startTime: q.startTime,
      endTime: q.endTime,
      limit: q.limit,
      order: ascending ? 'asc' : 'desc',
    });
    return ascending ? rows : rows.reverse();
  }

  /** GET /fapi/v1/income and fundingFeeHistory: newest first, then truncated to the limit (spec). */
  async incomeHistory({ userId, address }: HistoryOwner, q: IncomeQuery): Promise<IncomeEntity[]> {
    await this.freshness.caughtUp(address);
    return this.income.listByUser(userId, q);
  }
}
