import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral, ValueTransformer } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

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

/** A row's value of one column as the driver would write it. */
type ColumnReader = (row: ObjectLiteral) => unknown;

interface Plan {
  table: string;
  columns: ColumnMetadata[];
  head: string;
  /** Each column's array type for `unnest`, or undefined when the column cannot go through one. */
  arrayTypes: (string | undefined)[];
  /** Each column's reader (`preparePersistentValue(getEntityValue(row))`, or the property itself). */
  readers: ColumnReader[];
}

/**
 * Column types whose values `pg` writes into an array literal as Postgres reads them back (strings,
 * numbers, booleans, Dates). Anything else (bytea, jsonb, enums) takes the VALUES statement.
 */
const ARRAY_TYPES: Record<string, string> = {
  text: 'text[]',
  uuid: 'uuid[]',
  bigint: 'int8[]',
  int: 'int4[]',
  integer: 'int4[]',
  numeric: 'numeric[]',
  boolean: 'bool[]',
  timestamptz: 'timestamptz[]',
};

/**
 * Column types the Postgres driver writes as they are: for a plain column of these (no embedded or
 * relation), its value is the row's property, through the column's transformer if it has one.
 * `preparePersistentValue` builds an array for each value on its way to that answer: most of the
 * garbage of a history batch.
 */
const AS_IS_TYPES = new Set([
  'text',
  'varchar',
  'character varying',
  'uuid',
  'bigint',
  'int',
  'integer',
  'smallint',
  'numeric',
  'boolean',
]);

function readerOf(driver: EntityManager['connection']['driver'], c: ColumnMetadata): ColumnReader {
  const plain =
    typeof c.type === 'string' &&
    AS_IS_TYPES.has(c.type) &&
    !c.isArray &&
    !Array.isArray(c.transformer) &&
    !c.embeddedMetadata &&
    !c.relationMetadata &&
    !c.referencedColumn;
  if (!plain) return (row) => driver.preparePersistentValue(c.getEntityValue(row), c);
  const property = c.propertyName;
  const transformer = c.transformer as ValueTransformer | undefined;
  if (transformer) return (row) => transformer.to(row[property]) as unknown;
  return (row) => row[property] as unknown;
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
  const arrayTypes = columns.map((c) => (typeof c.type === 'string' ? ARRAY_TYPES[c.type] : undefined));
  const readers = columns.map((c) => readerOf(driver, c));
  plan = { table, columns, head, arrayTypes, readers };
  plans.set(metadata, plan);
  return plan;
}

/** The ON CONFLICT and RETURNING clauses. */
export function conflictClause(manager: EntityManager, table: string, options: InsertRowsOptions): string {
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
  const { table, columns, head, readers } = planFor(manager, manager.connection.getMetadata(entity));
  const end = conflictClause(manager, table, options);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const statements: Statement[] = [];
  for (let from = 0; from < rows.length; from += perStatement) {
    const to = Math.min(rows.length, from + perStatement);
    const params: unknown[] = [];
    let sql = head;
    for (let r = from; r < to; r++) {
      sql += r === from ? '(' : ', (';
      for (let i = 0; i < columns.length; i++) {
        const value = readers[i]!(rows[r]!);
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

/** Rows as one array per column, the form `unnest` takes them in. */
export interface ColumnArrays {
  /** The escaped table name. */
  table: string;
  /** Escaped column names. */
  names: string[];
  /** Each column's array type (`text[]`, `numeric[]`, …). */
  types: string[];
  arrays: unknown[][];
}

/**
 * `rows` of `entity` as column arrays for `unnest`; undefined for rows that cannot go that way: a
 * column type without an array form, a raw SQL value, or DEFAULT for some rows only of a column
 * whose default the database computes (`now()`). A column undefined in every row is left out (its
 * DEFAULT applies, as in the VALUES statement); elsewhere undefined is what DEFAULT would write: the
 * column's constant default, or NULL in a nullable column without one.
 */
export function columnArrays<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  rows: readonly E[],
): ColumnArrays | undefined {
  if (rows.length === 0) return undefined;
  const { table, columns, arrayTypes, readers } = planFor(manager, manager.connection.getMetadata(entity));
  const driver = manager.connection.driver;
  const out: ColumnArrays = { table, names: [], types: [], arrays: [] };
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i]!;
    const read = readers[i]!;
    const values: unknown[] = new Array(rows.length);
    let undefinedCount = 0;
    for (let r = 0; r < rows.length; r++) {
      const value = read(rows[r]!);
      if (typeof value === 'function') return undefined;
      if (value === undefined) undefinedCount++;
      values[r] = value;
    }
    if (undefinedCount === rows.length) continue;
    if (undefinedCount > 0) {
      const fill = defaultValue(column);
      if (fill === undefined) return undefined;
      for (let r = 0; r < rows.length; r++) if (values[r] === undefined) values[r] = fill;
    }
    const arrayType = arrayTypes[i];
    if (!arrayType) return undefined;
    out.names.push(driver.escape(column.databaseName));
    out.types.push(arrayType);
    out.arrays.push(values);
  }
  return out.names.length ? out : undefined;
}

/**
 * What DEFAULT writes in `column` as a value: its constant default, NULL for a nullable column
 * without one; undefined for a default computed by the database (`now()`) or none at all.
 */
function defaultValue(column: ColumnMetadata): unknown {
  const d: unknown = column.default;
  if (d === undefined) return column.isNullable ? null : undefined;
  return typeof d === 'string' || typeof d === 'number' || typeof d === 'boolean' ? d : undefined;
}

/** The `keys` columns of `rows` as arrays for `unnest`; throws for a key that is not a plain column. */
export function keyArrays<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  keys: readonly (keyof E & string)[],
  rows: readonly E[],
): ColumnArrays {
  const { table, columns, arrayTypes, readers } = planFor(manager, manager.connection.getMetadata(entity));
  const driver = manager.connection.driver;
  const out: ColumnArrays = { table, names: [], types: [], arrays: [] };
  for (const key of keys) {
    const i = columns.findIndex((c) => c.propertyName === key);
    const column = columns[i];
    const arrayType = arrayTypes[i];
    if (!column || !arrayType) throw new Error(`keyArrays: ${key} is not a plain column`);
    out.names.push(driver.escape(column.databaseName));
    out.types.push(arrayType);
    out.arrays.push(rows.map(readers[i]!));
  }
  return out;
}

/** Text that stands unquoted as an element of an array literal (not NULL, no quote, brace, comma or space). */
const BARE_ELEMENT = /^[A-Za-z0-9_.:+-]+$/;

/**
 * `values` as the text of a Postgres array literal, the form `pg` sends an array parameter in, or
 * undefined for an element other than a string, number, boolean or null (`pg` writes those). Only
 * elements that need it are quoted and escaped: `pg` quotes and escapes every one, two regex
 * replacements and a new string per element.
 */
export function arrayLiteral(values: readonly unknown[]): string | undefined {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'string')
      out +=
        BARE_ELEMENT.test(v) && !(v.length === 4 && v.toUpperCase() === 'NULL')
          ? v
          : `"${v.replace(/[\\"]/g, '\\$&')}"`;
    else if (typeof v === 'number' || typeof v === 'bigint') out += String(v);
    else if (typeof v === 'boolean') out += v ? 'true' : 'false';
    else return undefined;
  }
  return out + '}';
}

/** `unnest($n::type[], …)` over `source`'s arrays, appended to `params`. */
export function unnestCall(source: ColumnArrays, params: unknown[]): string {
  const casts = source.arrays.map(
    (values, i) => `$${params.push(arrayLiteral(values) ?? values)}::${source.types[i]}`,
  );
  return `unnest(${casts.join(', ')})`;
}

/** `entity`'s table, escaped (schema-qualified when it has one). */
export function tableName<E extends ObjectLiteral>(manager: EntityManager, entity: EntityTarget<E>): string {
  return planFor(manager, manager.connection.getMetadata(entity)).table;
}

/** The database name of `entity`'s column `property`, escaped. */
export function columnName<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  property: keyof E & string,
): string {
  const column = manager.connection.getMetadata(entity).findColumnWithPropertyName(property);
  if (!column) throw new Error(`no column ${property}`);
  return manager.connection.driver.escape(column.databaseName);
}

/**
 * The same rows as one `INSERT … SELECT * FROM unnest($1::type[], …)`: one array parameter per
 * column, so the text depends on the columns only, not on the number of rows, and the statement can
 * be prepared once per connection (no parse or plan per batch, which is most of what the embedded
 * database spends on a batch). Undefined for rows `columnArrays` cannot express.
 */
export function unnestStatement<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  rows: readonly E[],
  options: InsertRowsOptions = {},
): Statement | undefined {
  const source = columnArrays(manager, entity, rows);
  if (!source) return undefined;
  const params: unknown[] = [];
  const sql =
    `INSERT INTO ${source.table}(${source.names.join(', ')}) SELECT * FROM ${unnestCall(source, params)}` +
    conflictClause(manager, source.table, options);
  return { sql, params };
}

/** A pg client's prepared statements are named per client: several clients may share one session. */
const clientTags = new WeakMap<object, string>();
const statementNumbers = new Map<string, number>();
let nextClientTag = 0;

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: ObjectLiteral[] }>;
}

/**
 * Runs `statement` prepared by name (pg prepares it on first use per connection) and returns its
 * rows: on the connection of `manager`'s transaction when it has one, else on a pooled connection
 * taken for it. For statements run on every batch: their text must not vary with the data.
 */
export async function queryPrepared(manager: EntityManager, statement: Statement): Promise<ObjectLiteral[]> {
  if (manager.connection.driver.options.type !== 'postgres') {
    const result: unknown = await manager.query(statement.sql, statement.params);
    return Array.isArray(result) ? (result as ObjectLiteral[]) : [];
  }
  const runner = manager.queryRunner as PostgresQueryRunner | undefined;
  if (runner && !runner.isReleased) return prepared(runner, statement);
  const own = manager.connection.createQueryRunner() as PostgresQueryRunner;
  try {
    return await prepared(own, statement);
  } finally {
    await own.release();
  }
}

async function prepared(runner: PostgresQueryRunner, statement: Statement): Promise<ObjectLiteral[]> {
  const client = (await runner.connect()) as PgClient;
  let tag = clientTags.get(client);
  if (tag === undefined) clientTags.set(client, (tag = `${process.pid}_${nextClientTag++}`));
  let number = statementNumbers.get(statement.sql);
  if (number === undefined) statementNumbers.set(statement.sql, (number = statementNumbers.size));
  const result = await client.query({
    name: `perp_${tag}_${number}`,
    text: statement.sql,
    values: statement.params,
  });
  return result.rows;
}

/**
 * Inserts `rows` of `entity` through `manager` (so inside its transaction when it has one) and
 * returns the `returning` columns of the rows written: one prepared `unnest` statement when the rows
 * allow it, else the VALUES statements.
 */
export async function insertRows<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  rows: readonly E[],
  options: InsertRowsOptions = {},
): Promise<ObjectLiteral[]> {
  const unnest = unnestStatement(manager, entity, rows, options);
  if (unnest) return queryPrepared(manager, unnest);
  const returned: ObjectLiteral[] = [];
  for (const { sql, params } of insertStatements(manager, entity, rows, options)) {
    const result: unknown = await manager.query(sql, params);
    if (Array.isArray(result)) for (const row of result) returned.push(row as ObjectLiteral);
  }
  return returned;
}
