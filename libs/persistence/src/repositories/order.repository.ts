import type { EntityManager } from 'typeorm';
import { OPEN_ORDER_STATUSES, OrderEntity } from '../entities/order.entity';
import { BaseRepository, type HistoryWindow } from './base.repository';
import { WriteBatch } from './write-batch';

/** Every column of an order row (the projection always writes the whole row). */
export type OrderRow = OrderEntity;

export interface OrderHistoryFilter extends HistoryWindow {
  symbol?: string;
}

/** Order history projection. Time filters and order apply to `updated_at` (the indexed column). */
export class OrderRepository extends BaseRepository<OrderEntity> {
  constructor(manager: EntityManager) {
    super(manager, OrderEntity);
  }

  /** Inserts or replaces the row by id (the projection replays idempotently). */
  async upsert(order: OrderRow): Promise<void> {
    await this.repo.upsert(order, { conflictPaths: ['id'], skipUpdateIfNoValuesChanged: true });
  }

  /** `upsert` of many rows in one statement; ids must be distinct (keep each order's latest row). */
  async upsertMany(orders: OrderRow[]): Promise<void> {
    await this.upsertInto(new WriteBatch(), orders).run(this.manager);
  }

  /** `upsertMany`'s statement, added to `batch`. */
  upsertInto(batch: WriteBatch, orders: readonly OrderRow[]): WriteBatch {
    if (orders.length === 0) return batch;
    // Repository.upsert's statement: every column given by some row is overwritten.
    const metadata = this.manager.connection.getMetadata(OrderEntity);
    const conflict = metadata.mapPropertyPathsToColumns(['id']);
    const overwrite = metadata.columns.filter(
      (c) => !conflict.includes(c) && orders.some((o) => c.getEntityValue(o) !== undefined),
    );
    return batch.insert(OrderEntity, orders, {
      onConflict: {
        target: conflict.map((c) => c.databaseName),
        update: [...conflict, ...overwrite].map((c) => c.databaseName),
        skipUnchanged: true,
      },
    });
  }

  async findById(id: string): Promise<OrderEntity | undefined> {
    return (await this.repo.findOneBy({ id })) ?? undefined;
  }

  async findForUser(userId: string, id: string): Promise<OrderEntity | undefined> {
    return (await this.repo.findOneBy({ id, userId })) ?? undefined;
  }

  /** The most recent order with that client id (ids of terminal orders may be reused). */
  async findByClientOrderId(
    userId: string,
    symbol: string,
    clientOrderId: string,
  ): Promise<OrderEntity | undefined> {
    return (
      (await this.repo.findOne({
        where: { userId, symbol, clientOrderId },
        order: { updatedAt: 'DESC', id: 'DESC' },
      })) ?? undefined
    );
  }

  listByUser(userId: string, filter: OrderHistoryFilter = {}): Promise<OrderEntity[]> {
    const qb = this.repo.createQueryBuilder('o').where('o.user_id = :userId', { userId });
    if (filter.symbol !== undefined) qb.andWhere('o.symbol = :symbol', filter);
    return this.applyWindow(qb, 'o.updated_at', filter, 'o.id').getMany();
  }

  /** Orders still working (NEW, PARTIALLY_FILLED), oldest first. */
  listOpen(userId: string, symbol?: string): Promise<OrderEntity[]> {
    const qb = this.repo
      .createQueryBuilder('o')
      .where('o.user_id = :userId', { userId })
      .andWhere('o.status IN (:...open)', { open: OPEN_ORDER_STATUSES });
    if (symbol !== undefined) qb.andWhere('o.symbol = :symbol', { symbol });
    return qb.orderBy('o.created_at', 'ASC').addOrderBy('o.id', 'ASC').getMany();
  }
}
