import type { EntityManager } from 'typeorm';
import { AlgoOrderEntity } from '../entities/algo-order.entity';
import { WriteBatch } from './write-batch';
import { BaseRepository, clampLimit } from './base.repository';

export interface AlgoOrderFilter {
  symbol: string;
  /** createTime window, both ends included. */
  from: number;
  to: number;
  /** algoId at or above. */
  fromId?: number;
  limit?: number;
  offset?: number;
}

/** Algo order history: the latest record of each algo order, by algoId. */
export class AlgoOrderRepository extends BaseRepository<AlgoOrderEntity> {
  constructor(manager: EntityManager) {
    super(manager, AlgoOrderEntity);
  }

  /** Inserts or replaces rows by algoId (the projection replays idempotently); ids must be distinct. */
  async upsertMany(rows: AlgoOrderEntity[]): Promise<void> {
    await this.upsertInto(new WriteBatch(), rows).run(this.manager);
  }

  /** `upsertMany`'s statement (every column replaced by algo id), added to `batch`. */
  upsertInto(batch: WriteBatch, rows: readonly AlgoOrderEntity[]): WriteBatch {
    const columns = this.manager.connection.getMetadata(AlgoOrderEntity).columns.map((c) => c.databaseName);
    return batch.insert(AlgoOrderEntity, rows, {
      onConflict: { target: ['algo_id'], update: columns.filter((c) => c !== 'algo_id') },
    });
  }

  /** The user's algo order by id, or the newest with that client id. */
  async findForUser(
    userId: string,
    ref: { algoId: number } | { clientAlgoId: string },
  ): Promise<AlgoOrderEntity | undefined> {
    return (
      (await this.repo.findOne({
        where: { userId, ...ref },
        order: { createdAt: 'DESC', algoId: 'DESC' },
      })) ?? undefined
    );
  }

  /** The user's algo orders of a symbol created in the window, by algoId. */
  listByUser(userId: string, f: AlgoOrderFilter): Promise<AlgoOrderEntity[]> {
    const qb = this.repo
      .createQueryBuilder('a')
      .where('a.user_id = :userId', { userId })
      .andWhere('a.symbol = :symbol', { symbol: f.symbol })
      .andWhere('a.created_at >= :from', { from: f.from })
      .andWhere('a.created_at <= :to', { to: f.to });
    if (f.fromId !== undefined) qb.andWhere('a.algo_id >= :fromId', { fromId: f.fromId });
    return qb
      .orderBy('a.algo_id', 'ASC')
      .offset(f.offset ?? 0)
      .limit(clampLimit(f.limit))
      .getMany();
  }
}
