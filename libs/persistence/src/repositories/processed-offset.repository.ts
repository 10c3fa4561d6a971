import type { EntityManager } from 'typeorm';
import { ProcessedOffsetEntity } from '../entities/processed-offset.entity';
import { BaseRepository } from './base.repository';
import { queryPrepared } from './bulk-insert';
import type { WriteBatch } from './write-batch';

/** "Consumer `consumer` has applied every input of (topic, partition) up to `offset`." */
export interface OffsetMark {
  consumer: string;
  topic: string;
  partition: number;
  offset: string;
}

export type ApplyOnceResult<T> = { applied: true; result: T } | { applied: false; highWaterMark: string };

/**
 * High-water marks of the exactly-once scheme: an input at or below its consumer's mark for that
 * partition was applied already and is skipped (a replay after a crash re-delivers it).
 */
export class ProcessedOffsetRepository extends BaseRepository<ProcessedOffsetEntity> {
  constructor(manager: EntityManager) {
    super(manager, ProcessedOffsetEntity);
  }

  async get(consumer: string, topic: string, partition: number): Promise<string | undefined> {
    return (await this.repo.findOneBy({ consumer, topic, partition }))?.offset;
  }

  listByConsumer(consumer: string): Promise<ProcessedOffsetEntity[]> {
    return this.repo.find({ where: { consumer }, order: { topic: 'ASC', partition: 'ASC' } });
  }

  /**
   * The statement that moves a mark forward ($1-$4: consumer, topic, partition, offset), never
   * backwards; it returns a row when the mark moved.
   */
  private moveMark(): string {
    return `INSERT INTO ${this.table()} AS p (consumer, topic, "partition", "offset", updated_at)
      VALUES ($1, $2, $3, $4, now())
      ON CONFLICT (consumer, topic, "partition")
      DO UPDATE SET "offset" = EXCLUDED."offset", updated_at = now() WHERE p."offset" < EXCLUDED."offset"
      RETURNING consumer`;
  }

  /** Moves the mark forward to `offset`; never backwards. True when it moved. */
  async advance(mark: OffsetMark): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(this.moveMark(), [
      mark.consumer,
      mark.topic,
      mark.partition,
      checkOffset(mark.offset),
    ]);
    return rows.length > 0;
  }

  /**
   * Runs `apply` and advances the mark to `mark.offset` in one transaction, unless the mark is
   * already there (then `apply` does not run). The mark's row is locked, so two instances of a
   * consumer (a rebalance in progress) cannot both apply the same input. `apply` must write through
   * the manager it is given.
   *
   * One statement claims the turn: the upsert moves the mark forward (or creates it) and locks the
   * row even when its WHERE leaves it as it was; a rollback (apply failed) puts the mark back.
   */
  async applyOnce<T>(
    mark: OffsetMark,
    apply: (manager: EntityManager) => Promise<T>,
  ): Promise<ApplyOnceResult<T>> {
    const offset = checkOffset(mark.offset);
    return this.manager.transaction(async (m) => {
      const key = [mark.consumer, mark.topic, mark.partition];
      // Prepared: it runs once per projection batch.
      const moved = await queryPrepared(m, {
        sql: this.moveMark(),
        params: [...key, offset],
      });
      if (moved.length === 0) {
        const [row]: { offset: string }[] = await m.query(
          `SELECT "offset"::text AS "offset" FROM ${this.table()}
           WHERE consumer = $1 AND topic = $2 AND "partition" = $3`,
          key,
        );
        return { applied: false, highWaterMark: row!.offset };
      }
      return { applied: true, result: await apply(m) };
    });
  }

  /**
   * `applyOnce` for a turn whose writes are gathered in a batch: the mark's upsert and the writes go
   * as one statement (`WITH mark AS (…), w0 AS (…) …`), each write guarded by the mark having
   * moved, so the turn is one round trip and atomic without BEGIN and COMMIT; a concurrent owner
   * waits on the mark's row as in `applyOnce`. Writes without an `unnest` form take `applyOnce`'s
   * transaction instead. True when the writes were applied.
   */
  async applyWritesOnce(mark: OffsetMark, batch: WriteBatch): Promise<boolean> {
    const params: unknown[] = [mark.consumer, mark.topic, mark.partition, checkOffset(mark.offset)];
    const parts = batch.compile(this.manager, params, 'EXISTS (SELECT FROM mark)');
    if (!parts) return (await this.applyOnce(mark, (m) => batch.run(m))).applied;
    const sql =
      `WITH mark AS (${this.moveMark()})` +
      parts.map((part, i) => `, w${i} AS (${part})`).join('') +
      ' SELECT EXISTS (SELECT FROM mark) AS applied';
    const [row] = await queryPrepared(this.manager, { sql, params });
    return (row as { applied: boolean }).applied;
  }
}

function checkOffset(offset: string): string {
  if (!/^\d+$/.test(offset)) throw new TypeError(`not a log offset: ${offset}`);
  return offset;
}
