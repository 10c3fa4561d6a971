import type { EntityManager, EntityTarget, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';

/** Time window and page of a history query: both ends inclusive, milliseconds. */
export interface HistoryWindow {
  startTime?: number;
  endTime?: number;
  /** Default 100, at most 1000 (the spec's ceiling for history endpoints). */
  limit?: number;
  /** By time; default newest first. */
  order?: 'asc' | 'desc';
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.trunc(limit)));
}

/**
 * A repository over one aggregate, bound to an EntityManager. `with(manager)` rebinds it to a
 * transaction: `dataSource.transaction((m) => orders.with(m).upsert(o))`. Inside a transaction use
 * only repositories bound to its manager: the embedded database has a single connection, so a
 * query through another manager would wait for the transaction forever.
 */
export abstract class BaseRepository<E extends ObjectLiteral> {
  protected constructor(
    readonly manager: EntityManager,
    private readonly target: EntityTarget<E>,
  ) {}

  with(manager: EntityManager): this {
    const Ctor = this.constructor as new (manager: EntityManager) => this;
    return new Ctor(manager);
  }

  protected get repo(): Repository<E> {
    return this.manager.getRepository(this.target);
  }

  /** The table as SQL, schema-qualified when the DataSource has a schema. */
  protected table(target: EntityTarget<ObjectLiteral> = this.target): string {
    const { tablePath } = this.manager.connection.getMetadata(target);
    return tablePath
      .split('.')
      .map((part) => this.manager.connection.driver.escape(part))
      .join('.');
  }

  protected applyWindow<T extends ObjectLiteral>(
    qb: SelectQueryBuilder<T>,
    timeColumn: string,
    window: HistoryWindow,
    tieBreakColumn: string,
  ): SelectQueryBuilder<T> {
    if (window.startTime !== undefined) qb.andWhere(`${timeColumn} >= :startTime`, window);
    if (window.endTime !== undefined) qb.andWhere(`${timeColumn} <= :endTime`, window);
    const dir = window.order === 'asc' ? 'ASC' : 'DESC';
    return qb.orderBy(timeColumn, dir).addOrderBy(tieBreakColumn, dir).limit(clampLimit(window.limit));
  }
}
