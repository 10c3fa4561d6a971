import type { EntityManager } from 'typeorm';
import { TradeEntity } from '../entities/trade.entity';
import { BaseRepository, type HistoryWindow } from './base.repository';

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
    const result = await this.repo
      .createQueryBuilder()
      .insert()
      .values(trades)
      .orIgnore()
      .returning(['id'])
      // Nothing is generated on insert: TypeORM's merge of returned values into the rows is pure cost.
      .updateEntity(false)
      .execute();
    return (result.raw as unknown[]).length;
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
