import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import {
  columnArrays,
  columnName,
  conflictClause,
  type InsertRowsOptions,
  insertRows,
  keyArrays,
  queryPrepared,
  tableName,
  unnestCall,
} from './bulk-insert';

type Write =
  | {
      kind: 'insert';
      entity: EntityTarget<ObjectLiteral>;
      rows: readonly ObjectLiteral[];
      options: InsertOptions;
    }
  | {
      kind: 'delete';
      entity: EntityTarget<ObjectLiteral>;
      keys: readonly string[];
      rows: readonly ObjectLiteral[];
    }
  | { kind: 'deleteBelow'; entity: EntityTarget<ObjectLiteral>; column: string; below: number };

/** Inserts in a batch return nothing: the batch is one statement whose rows are the mark's. */
export type InsertOptions = Omit<InsertRowsOptions, 'returning'>;

/**
 * The writes of one projection turn, gathered before anything is sent, so that they can go to the
 * database as sub-statements of one statement (`ProcessedOffsetRepository.applyWritesOnce`): one
 * round trip per turn instead of one per table plus BEGIN and COMMIT. Under load every round trip
 * waits for a turn of a busy event loop, which is most of a projection's lag.
 *
 * Sub-statements of one statement see the same snapshot and must not touch the same row twice:
 * rows of one insert are distinct by their conflict target, and a delete must not meet the rows an
 * insert of the same batch writes.
 */
export class WriteBatch {
  private readonly writes: Write[] = [];

  get size(): number {
    return this.writes.length;
  }

  insert<E extends ObjectLiteral>(
    entity: EntityTarget<E>,
    rows: readonly E[],
    options: InsertOptions = {},
  ): this {
    if (rows.length) this.writes.push({ kind: 'insert', entity, rows, options });
    return this;
  }

  /** Deletes the rows whose `keys` equal those of one of `rows`. */
  delete<E extends ObjectLiteral>(
    entity: EntityTarget<E>,
    keys: readonly (keyof E & string)[],
    rows: readonly E[],
  ): this {
    if (rows.length) this.writes.push({ kind: 'delete', entity, keys, rows });
    return this;
  }

  /** Deletes the rows whose (integer) `column` is below `below`. */
  deleteBelow<E extends ObjectLiteral>(
    entity: EntityTarget<E>,
    column: keyof E & string,
    below: number,
  ): this {
    if (!Number.isSafeInteger(below)) throw new TypeError(`deleteBelow: ${below} is not an integer`);
    this.writes.push({ kind: 'deleteBelow', entity, column, below });
    return this;
  }

  /**
   * Runs the writes in order, one statement each, through `manager` (its transaction if any); rows
   * without an `unnest` form go as VALUES statements.
   */
  async run(manager: EntityManager): Promise<void> {
    for (const w of this.writes) {
      const params: unknown[] = [];
      const sql = statementOf(manager, w, params, 'TRUE');
      if (sql !== undefined) await queryPrepared(manager, { sql, params });
      else if (w.kind === 'insert') await insertRows(manager, w.entity, w.rows, w.options);
    }
  }

  /**
   * The writes as data-modifying sub-statements for a WITH, each doing its work only when `guard`
   * (an SQL condition) holds, their parameters appended to `params`. Undefined when a write's rows
   * have no `unnest` form (then `run` them).
   */
  compile(manager: EntityManager, params: unknown[], guard: string): string[] | undefined {
    const parts: string[] = [];
    for (const w of this.writes) {
      const sql = statementOf(manager, w, params, guard);
      if (sql === undefined) return undefined;
      parts.push(sql);
    }
    return parts;
  }
}

/** One write as a statement doing its work only when `guard` holds; undefined: no `unnest` form. */
function statementOf(manager: EntityManager, w: Write, params: unknown[], guard: string): string | undefined {
  if (w.kind === 'insert') {
    const source = columnArrays(manager, w.entity, w.rows);
    if (!source) return undefined;
    return (
      `INSERT INTO ${source.table}(${source.names.join(', ')}) SELECT * FROM ${unnestCall(source, params)} ` +
      `WHERE ${guard}${conflictClause(manager, source.table, w.options)}`
    );
  }
  if (w.kind === 'delete') {
    const source = keyArrays(manager, w.entity, w.keys, w.rows);
    return (
      `DELETE FROM ${source.table} WHERE (${source.names.join(', ')}) IN ` +
      `(SELECT * FROM ${unnestCall(source, params)}) AND ${guard}`
    );
  }
  const column = columnName(manager, w.entity, w.column);
  return `DELETE FROM ${tableName(manager, w.entity)} WHERE ${column} < $${params.push(w.below)} AND ${guard}`;
}
