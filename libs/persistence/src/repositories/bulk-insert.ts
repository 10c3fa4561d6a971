import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/**
 * Multi-row INSERT statements written directly from the entity's metadata: the statement TypeORM's
 * InsertQueryBuilder writes for these entities (same columns, transformers, DEFAULT for undefined,
 * parameters), without its per-value parameter bookkeeping, which cost ~7 % of the CPU of a signed
 * order in the embedded exchange. Only plain columns: an entity with generated, version or
 * discriminator columns is refused (the builder does more for those).
 */
export type OnConflict =
  /** ON CONFLICT DO NOTHING */
  | 'ignore'
  /** ON CONFLICT (target) DO UPDATE SET col = EXCLUDED.col…, optionally only when a value differs. */
  | { target: readonly string[]; update: readonly string[]; skipUnchanged?: boolean };

export interface InsertRowsOptions {
  onConflict?: OnConflict;
  /** Columns (database names) of the inserted or updated rows to return. */
  returning?: readonly string[];
}

interface Plan {
  table: string;
  columns: ColumnMetadata[];
  head: string;
}

const plans = new WeakMap<EntityMetadata, Plan>();
/** Postgres's limit on the parameters of one statement. */
const MAX_PARAMETERS = 65_535;

function planFor(manager: EntityManager, metadata: EntityMetadata): Plan {
  let plan = plans.get(metadata);
  if (plan) return plan;
  const driver = manager.connection.driver;
  const columns = metadata.columns.filter(
    (c) => c.isInsert && !(c.isGenerated && c.generationStrategy === 'increment'),
  );
  const special = columns.find((c) => c.isGenerated || c.isVersion || c.isDiscriminator);
  if (special) throw new Error(`insertRows: ${metadata.name}.${special.propertyPath} is not a plain column`);
  const table = metadata.tablePath
    .split('.')
    .map((part) => driver.escape(part))
    .join('.');
  const head = `INSERT INTO ${table}(${columns.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES `;
  plan = { table, columns, head };
  plans.set(metadata, plan);
  return plan;
}

/** The ON CONFLICT and RETURNING clauses. */
function tail(manager: EntityManager, table: string, options: InsertRowsOptions): string {
  const esc = (c: string) => manager.connection.driver.escape(c);
  let sql = '';
  const conflict = options.onConflict;
  if (conflict === 'ignore') sql += ' ON CONFLICT DO NOTHING';
  else if (conflict) {
    sql += ` ON CONFLICT ( ${conflict.target.map(esc).join(', ')} ) DO UPDATE SET `;
    sql += conflict.update.map((c) => `${esc(c)} = EXCLUDED.${esc(c)}`).join(', ');
    if (conflict.skipUnchanged)
      sql += ` WHERE (${conflict.update.map((c) => `${table}.${esc(c)} IS DISTINCT FROM EXCLUDED.${esc(c)}`).join(' OR ')})`;
  }
  if (options.returning?.length) sql += ` RETURNING ${options.returning.map(esc).join(', ')}`;
  return sql;
}

/** A parameterised statement. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The statements of `insertRows`: one, or several when the rows need more than Postgres's 65,535
 * parameters.
 */
export function insertStatements<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  rows: readonly E[],
  options: InsertRowsOptions = {},
): Statement[] {
  if (rows.length === 0) return [];
  const { table, columns, head } = planFor(manager, manager.connection.getMetadata(entity));
  const driver = manager.connection.driver;
  const end = tail(manager, table, options);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const statements: Statement[] = [];
  for (let from = 0; from < rows.length; from += perStatement) {
    const to = Math.min(rows.length, from + perStatement);
    const params: unknown[] = [];
    let sql = head;
    for (let r = from; r < to; r++) {
      sql += r === from ? '(' : ', (';
      for (let i = 0; i < columns.length; i++) {
        const column = columns[i]!;
        const value: unknown = driver.preparePersistentValue(column.getEntityValue(rows[r]!), column);
        if (i > 0) sql += ', ';
        if (value === undefined) sql += 'DEFAULT';
        else if (typeof value === 'function') sql += (value as () => string)();
        else sql += `$${params.push(value)}`;
      }
      sql += ')';
    }
    statements.push({ sql: sql + end, params });
  }
  return statements;
}

/**
 * Inserts `rows` of `entity` through `manager` (so inside its transaction when it has one) and
 * returns the `returning` columns of the rows written.
 */
export async function insertRows<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  rows: readonly E[],
  options: InsertRowsOptions = {},
): Promise<ObjectLiteral[]> {
  const returned: ObjectLiteral[] = [];
  for (const { sql, params } of insertStatements(manager, entity, rows, options)) {
    const result: unknown = await manager.query(sql, params);
    if (Array.isArray(result)) for (const row of result) returned.push(row as ObjectLiteral);
  }
  return returned;
}
