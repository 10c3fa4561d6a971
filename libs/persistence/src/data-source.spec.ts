import { MIGRATIONS } from './migrations';
import type { DataSource } from 'typeorm';
import { createDataSource, openDataSource, pingDataSource, runMigrations } from './data-source';
import { IncomeEntity, OrderEntity } from './entities';
import { createTestSchema, type TestSchema } from './testing/test-schema';

describe('data source and migrations (real Postgres)', () => {
  let db: TestSchema;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestSchema();
    ds = await openDataSource(db.url, { schema: db.schema, poolSize: 2 });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('creates every table in its own schema', async () => {
    const rows: { table_name: string }[] = await ds.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [db.schema],
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      'admin_audit',
      'algo_orders',
      'api_keys',
      'engine_snapshots',
      'force_orders',
      'funding_rates',
      'income',
      'insurance_fund_movements',
      'listen_keys',
      'market_adl_quantiles',
      'market_agg_trades',
      'market_book_levels',
      'market_books',
      'market_candles',
      'market_positions',
      'market_prices',
      'market_statistics',
      'market_ticker_minutes',
      'market_trades',
      'orders',
      'processed_offsets',
      'trades',
      'typeorm_migrations',
      'users',
    ]);
  });

  it('runs migrations idempotently: a second run, or another process, applies nothing', async () => {
    expect(await runMigrations(ds)).toEqual([]);
    const again = await openDataSource(db.url, { schema: db.schema, poolSize: 1 });
    try {
      expect(await runMigrations(again)).toEqual([]);
      const applied: { name: string }[] = await again.query(`SELECT name FROM typeorm_migrations`);
      expect(applied.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await again.destroy();
    }
  });

  it('entities and migrations describe the same schema (nothing left to synchronize)', async () => {
    const pending = await ds.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('round-trips numeric columns as exact decimal strings', async () => {
    const values = [
      '123456789.123456789012345678',
      '-98765432109876543210.000000000000000001',
      '0.000000000000000001',
      '1.50',
      '0',
    ];
    const repo = ds.getRepository(IncomeEntity);
    for (const [i, income] of values.entries()) {
      await repo.insert({
        id: `00000000-0000-4000-8000-00000000000${i}`,
        userId: '00000000-0000-4000-8000-0000000000aa',
        incomeType: 'REALIZED_PNL',
        income,
        time: 1_700_000_000_000 + i,
      });
    }
    const rows = await repo.find({ order: { time: 'ASC' } });
    expect(rows.map((r) => r.income)).toEqual(values);
    expect(rows.map((r) => r.time)).toEqual(values.map((_, i) => 1_700_000_000_000 + i));
  });

  it('refuses to write a JS number into a money column', async () => {
    await expect(
      ds.getRepository(OrderEntity).insert({
        id: '00000000-0000-4000-8000-0000000000b1',
        userId: '00000000-0000-4000-8000-0000000000aa',
        symbol: 'BTCUSDT',
        clientOrderId: 'c1',
        side: 'BUY',
        type: 'LIMIT',
        origType: 'LIMIT',
        timeInForce: 'GTC',
        price: 0.1 as unknown as string,
        origQty: '1',
        status: 'NEW',
        createdAt: 1,
        updatedAt: 1,
      }),
    ).rejects.toThrow('not a decimal string: number 0.1');
  });

  it('answers the readiness ping, and not once closed', async () => {
    expect(await pingDataSource(ds)).toBe(true);
    const closed = createDataSource(db.url, { schema: db.schema });
    expect(await pingDataSource(closed)).toBe(false);
  });
});

describe('migrations from processes starting together', () => {
  it('are applied exactly once', async () => {
    const db = await createTestSchema();
    const sources = [0, 1, 2].map(() => createDataSource(db.url, { schema: db.schema, poolSize: 1 }));
    try {
      await Promise.all(sources.map((s) => s.initialize()));
      const applied = await Promise.all(sources.map((s) => runMigrations(s)));
      expect(applied.flat()).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await Promise.all(sources.map((s) => (s.isInitialized ? s.destroy() : undefined)));
      await db.drop();
    }
  });

  it('rejects a schema name that is not a plain identifier', () => {
    expect(() => createDataSource('postgres://x/y', { schema: 'a; drop table users' })).toThrow(
      'invalid schema name',
    );
  });
});
