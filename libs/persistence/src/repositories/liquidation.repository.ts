import type { EntityManager } from 'typeorm';
import {
  type AutoCloseType,
  ForceOrderEntity,
  InsuranceMovementEntity,
} from '../entities/liquidation.entity';
import { BaseRepository, type HistoryWindow } from './base.repository';
import { insertRows } from './bulk-insert';
import type { WriteBatch } from './write-batch';

export interface ForceOrderFilter extends HistoryWindow {
  symbol?: string;
  autoCloseType?: AutoCloseType;
}

/** One page (1-based) of at most `limit` rows, newest first, and how many rows there are in all. */
export interface Page<T> {
  rows: T[];
  total: number;
}

export interface PageRequest {
  page: number;
  limit: number;
}

export class ForceOrderRepository extends BaseRepository<ForceOrderEntity> {
  constructor(manager: EntityManager) {
    super(manager, ForceOrderEntity);
  }

  /** Inserts rows whose id is new and skips the others (replays); returns how many were new. */
  async insertMany(rows: ForceOrderEntity[]): Promise<number> {
    if (rows.length === 0) return 0;
    const written = await insertRows(this.manager, ForceOrderEntity, rows, {
      onConflict: 'ignore',
      returning: ['id'],
    });
    return written.length;
  }

  /** `insertMany`'s statement (a replayed id is ignored), added to `batch`. */
  insertInto(batch: WriteBatch, rows: readonly ForceOrderEntity[]): WriteBatch {
    return batch.insert(ForceOrderEntity, rows, { onConflict: 'ignore' });
  }

  /** GET /fapi/v1/forceOrders: a user's rows in the window, newest first by default. */
  listByUser(userId: string, filter: ForceOrderFilter = {}): Promise<ForceOrderEntity[]> {
    const qb = this.repo.createQueryBuilder('f').where('f.user_id = :userId', { userId });
    if (filter.autoCloseType !== undefined) qb.andWhere('f.auto_close_type = :autoCloseType', filter);
    if (filter.symbol !== undefined) qb.andWhere('f.symbol = :symbol', filter);
    return this.applyWindow(qb, 'f.time', filter, 'f.id').getMany();
  }

  /** A symbol's rows of one type (the native ADL events), newest first by default. */
  listBySymbol(
    symbol: string,
    autoCloseType: AutoCloseType,
    window: HistoryWindow = {},
  ): Promise<ForceOrderEntity[]> {
    const qb = this.repo
      .createQueryBuilder('f')
      .where('f.symbol = :symbol', { symbol })
      .andWhere('f.auto_close_type = :autoCloseType', { autoCloseType });
    return this.applyWindow(qb, 'f.time', window, 'f.id').getMany();
  }

  /** A user's rows of one type, a page at a time, newest first (the native ADL history). */
  async pageByUser(
    userId: string,
    autoCloseType: AutoCloseType,
    { page, limit }: PageRequest,
  ): Promise<Page<ForceOrderEntity>> {
    const [rows, total] = await this.repo
      .createQueryBuilder('f')
      .where('f.user_id = :userId', { userId })
      .andWhere('f.auto_close_type = :autoCloseType', { autoCloseType })
      .orderBy('f.time', 'DESC')
      .addOrderBy('f.id', 'DESC')
      .offset((page - 1) * limit)
      .limit(limit)
      .getManyAndCount();
    return { rows, total };
  }
}

/** A risk partition's latest share of the insurance fund. */
export interface InsuranceShare {
  partition: number;
  balance: string;
  time: number;
}

export class InsuranceMovementRepository extends BaseRepository<InsuranceMovementEntity> {
  constructor(manager: EntityManager) {
    super(manager, InsuranceMovementEntity);
  }

  async insertMany(rows: InsuranceMovementEntity[]): Promise<number> {
    if (rows.length === 0) return 0;
    const written = await insertRows(this.manager, InsuranceMovementEntity, rows, {
      onConflict: 'ignore',
      returning: ['id'],
    });
    return written.length;
  }

  /** `insertMany`'s statement (a replayed id is ignored), added to `batch`. */
  insertInto(batch: WriteBatch, rows: readonly InsuranceMovementEntity[]): WriteBatch {
    return batch.insert(InsuranceMovementEntity, rows, { onConflict: 'ignore' });
  }

  /** Each partition's share after its latest movement (by place in the partition), by partition. */
  async latestShares(): Promise<InsuranceShare[]> {
    const rows: { partition: number; balance: string; time: string }[] = await this.manager.query(
      `SELECT DISTINCT ON (partition) partition, balance, time FROM ${this.table()}
       ORDER BY partition, source_offset DESC, source_index DESC`,
    );
    return rows.map((r) => ({ partition: r.partition, balance: r.balance, time: Number(r.time) }));
  }

  /**
   * The shares and a page of movements as of one moment (one REPEATABLE READ transaction): the
   * balance they add up to and the page agree while the projector inserts.
   */
  fund(request: PageRequest): Promise<{ shares: InsuranceShare[]; page: Page<InsuranceMovementEntity> }> {
    return this.manager.transaction('REPEATABLE READ', async (m) => {
      const r = this.with(m);
      const shares = await r.latestShares();
      return { shares, page: await r.page(request) };
    });
  }

  /** Movements a page at a time, newest first (by time, then id). */
  async page({ page, limit }: PageRequest): Promise<Page<InsuranceMovementEntity>> {
    const [rows, total] = await this.repo
      .createQueryBuilder('m')
      .orderBy('m.time', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .offset((page - 1) * limit)
      .limit(limit)
      .getManyAndCount();
    return { rows, total };
  }
}
