import type { EntityManager } from 'typeorm';
import { TradeEntity } from '../entities/trade.entity';
import { BaseRepository, type HistoryWindow } from './base.repository';
import { insertRows } from './bulk-insert';
import type { WriteBatch } from './write-batch';

export interface TradeHistoryFilter extends HistoryWindow {
  symbol?: string;
}

export class TradeRepository extends BaseRepository<TradeEntity> {
  constructor(manager: EntityManager) {
    super(manager, TradeEntity);
  }

  /** Inserts rows whose id is new and skips the others (replays); returns how many were new. */
  async insertMany(trades: TradeEntity[]): Promise<number> {
    if (trades.length === 0) return 0;
    const written = await insertRows(this.manager, TradeEntity, trades, {
      onConflict: 'ignore',
      returning: ['id'],
    });
    return written.length;
  }

  /** `insertMany`'s statement (a replayed id is ignored), added to `batch`. */
  insertInto(batch: WriteBatch, rows: readonly TradeEntity[]): WriteBatch {
    return batch.insert(TradeEntity, rows, { onConflict: 'ignore' });
  }

  listByUser(userId: string, filter: TradeHistoryFilter = {}): Promise<TradeEntity[]> {
    const qb = this.repo.createQueryBuilder('t').where('t.user_id = :userId', { userId });
    if (filter.symbol !== undefined) qb.andWhere('t.symbol = :symbol', filter);
    return this.applyWindow(qb, 't.time', filter, 't.id').getMany();
  }

  /** Fills of one order, oldest first. */
  listByOrder(orderId: string): Promise<TradeEntity[]> {
    return this.repo.find({ where: { orderId }, order: { time: 'ASC', id: 'ASC' } });
  }
}
