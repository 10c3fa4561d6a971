import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { IncomeEntity, type IncomeType } from '../entities/income.entity';
import { BaseRepository, type HistoryWindow } from './base.repository';
import { insertRows } from './bulk-insert';
import type { WriteBatch } from './write-batch';

export interface IncomeFilter extends Omit<HistoryWindow, 'order'> {
  symbol?: string;
  /** One type, several, or (undefined or empty) all. */
  incomeType?: IncomeType | readonly IncomeType[];
}

export class IncomeRepository extends BaseRepository<IncomeEntity> {
  constructor(manager: EntityManager) {
    super(manager, IncomeEntity);
  }

  /** Inserts rows whose id is new and skips the others (replays); returns how many were new. */
  async insertMany(rows: IncomeEntity[]): Promise<number> {
    if (rows.length === 0) return 0;
    const written = await insertRows(this.manager, IncomeEntity, rows, {
      onConflict: 'ignore',
      returning: ['id'],
    });
    return written.length;
  }

  /** `insertMany`'s statement (a replayed id is ignored), added to `batch`. */
  insertInto(batch: WriteBatch, rows: readonly IncomeEntity[]): WriteBatch {
    return batch.insert(IncomeEntity, rows, { onConflict: 'ignore' });
  }

  /**
   * GET /fapi/v1/income: newest first, then truncated to the limit. With one income type the
   * (user_id, income_type, time, id) index serves the order directly, else (user_id, time, id).
   */
  listByUser(userId: string, filter: IncomeFilter = {}): Promise<IncomeEntity[]> {
    return this.query(userId, filter).getMany();
  }

  /** The query of `listByUser` (exposed so its plan can be checked). */
  query(userId: string, filter: IncomeFilter = {}): SelectQueryBuilder<IncomeEntity> {
    const qb = this.repo.createQueryBuilder('i').where('i.user_id = :userId', { userId });
    const types = filter.incomeType === undefined ? [] : [filter.incomeType].flat();
    if (types.length === 1) qb.andWhere('i.income_type = :type', { type: types[0] });
    else if (types.length > 1) qb.andWhere('i.income_type IN (:...types)', { types });
    if (filter.symbol !== undefined) qb.andWhere('i.symbol = :symbol', filter);
    return this.applyWindow(qb, 'i.time', { ...filter, order: 'desc' }, 'i.id');
  }
}
