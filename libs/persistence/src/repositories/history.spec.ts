import { AdminAuditEntity, IncomeEntity, type IncomeType, OrderEntity, TradeEntity } from '../entities';
import { stableUuid } from '@perp/contracts';
import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { insertStatements, queryPrepared, unnestStatement } from './bulk-insert';
import { IncomeRepository } from './income.repository';
import { OrderRepository } from './order.repository';
import { TradeRepository } from './trade.repository';

const ALICE = stableUuid('alice');
const BOB = stableUuid('bob');

function order(n: number, fields: Partial<OrderEntity> = {}): OrderEntity {
  return {
    id: stableUuid(`order-${n}`),
    userId: ALICE,
    symbol: 'BTCUSDT',
    clientOrderId: `c${n}`,
    side: 'BUY',
    type: 'LIMIT',
    origType: 'LIMIT',
    timeInForce: 'GTC',
    price: '65000.1',
    origQty: '0.002',
    executedQty: '0',
    cumQuote: '0',
    avgPrice: '0',
    status: 'NEW',
    reduceOnly: false,
    priceProtect: false,
    stopPrice: '0',
    workingType: 'CONTRACT_PRICE',
    positionSide: 'BOTH',
    selfTradePreventionMode: 'EXPIRE_TAKER',
    createdAt: 1_000 + n,
    updatedAt: 1_000 + n,
    ...fields,
  };
}

function trade(n: number, fields: Partial<TradeEntity> = {}): TradeEntity {
  return {
    id: stableUuid(`trade-${n}`),
    orderId: stableUuid('order-1'),
    userId: ALICE,
    symbol: 'BTCUSDT',
    side: 'BUY',
    price: '65000.1',
    qty: '0.001',
    quoteQty: '65.0001',
    commission: '0.026000040000000001',
    commissionAsset: 'USDT',
    realizedPnl: '0',
    maker: n % 2 === 0,
    time: 2_000 + n,
    ...fields,
  };
}

function income(
  n: number,
  incomeType: IncomeType,
  time: number,
  fields: Partial<IncomeEntity> = {},
): IncomeEntity {
  return {
    id: stableUuid(`income-${n}`),
    userId: ALICE,
    symbol: 'BTCUSDT',
    incomeType,
    income: `-0.00000000000000000${n % 10}`,
    asset: 'USDT',
    info: '',
    tradeId: stableUuid(`source-${n}`),
    time,
    ...fields,
  };
}

describe('history projections (real Postgres)', () => {
  let db: TestDatabase;
  let orders: OrderRepository;
  let trades: TradeRepository;
  let incomes: IncomeRepository;

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 4 });
    orders = new OrderRepository(db.dataSource.manager);
    trades = new TradeRepository(db.dataSource.manager);
    incomes = new IncomeRepository(db.dataSource.manager);
  });
  afterAll(() => db?.close());

  describe('orders', () => {
    it('upserts by id: a fill replaces the row, a replay changes nothing', async () => {
      await orders.upsert(order(1));
      const filled = order(1, {
        status: 'FILLED',
        executedQty: '0.002',
        cumQuote: '130.0002',
        avgPrice: '65000.1',
        updatedAt: 5_000,
      });
      await orders.upsert(filled);
      await orders.upsert(filled);
      expect(await orders.findById(filled.id)).toEqual(filled);
      expect(await orders.findForUser(BOB, filled.id)).toBeUndefined();
    });

    it('finds the newest order with a client id, which terminal orders may share', async () => {
      await orders.upsert(order(2, { clientOrderId: 'reused', status: 'CANCELED', updatedAt: 1_100 }));
      await orders.upsert(order(3, { clientOrderId: 'reused', status: 'NEW', updatedAt: 1_200 }));
      expect((await orders.findByClientOrderId(ALICE, 'BTCUSDT', 'reused'))?.id).toBe(order(3).id);
      expect(await orders.findByClientOrderId(ALICE, 'ETHUSDT', 'reused')).toBeUndefined();
    });

    it('lists history by symbol and update-time window, newest first, limited', async () => {
      await orders.upsert(order(10, { symbol: 'ETHUSDT', updatedAt: 10_000 }));
      await orders.upsert(order(11, { symbol: 'ETHUSDT', updatedAt: 11_000, status: 'PARTIALLY_FILLED' }));
      await orders.upsert(order(12, { symbol: 'ETHUSDT', updatedAt: 12_000, status: 'FILLED' }));
      await orders.upsert(order(13, { symbol: 'ETHUSDT', userId: BOB, updatedAt: 11_500 }));
      const ids = (list: OrderEntity[]) => list.map((o) => o.clientOrderId);
      expect(ids(await orders.listByUser(ALICE, { symbol: 'ETHUSDT' }))).toEqual(['c12', 'c11', 'c10']);
      expect(
        ids(await orders.listByUser(ALICE, { symbol: 'ETHUSDT', startTime: 11_000, endTime: 12_000 })),
      ).toEqual(['c12', 'c11']);
      expect(ids(await orders.listByUser(ALICE, { symbol: 'ETHUSDT', limit: 2, order: 'asc' }))).toEqual([
        'c10',
        'c11',
      ]);
      expect(ids(await orders.listOpen(ALICE, 'ETHUSDT'))).toEqual(['c10', 'c11']);
      expect(ids(await orders.listOpen(BOB))).toEqual(['c13']);
    });
  });

  describe('trades', () => {
    it('inserts each trade once (replays are skipped) and keeps every digit', async () => {
      expect(await trades.insertMany([trade(1), trade(2)])).toBe(2);
      expect(await trades.insertMany([trade(2), trade(3)])).toBe(1);
      expect(await trades.insertMany([])).toBe(0);
      expect(await trades.listByOrder(stableUuid('order-1'))).toEqual([trade(1), trade(2), trade(3)]);
    });

    it('lists a user’s trades by symbol and time window', async () => {
      await trades.insertMany([
        trade(20, { symbol: 'SOLUSDT', time: 20_000 }),
        trade(21, { symbol: 'SOLUSDT', time: 21_000 }),
        trade(22, { symbol: 'SOLUSDT', time: 22_000, userId: BOB }),
      ]);
      const times = (list: TradeEntity[]) => list.map((t) => t.time);
      expect(times(await trades.listByUser(ALICE, { symbol: 'SOLUSDT' }))).toEqual([21_000, 20_000]);
      expect(times(await trades.listByUser(ALICE, { symbol: 'SOLUSDT', endTime: 20_999 }))).toEqual([20_000]);
      expect(times(await trades.listByUser(ALICE, { startTime: 20_000, order: 'asc' }))).toEqual([
        20_000, 21_000,
      ]);
      expect(times(await trades.listByUser(BOB))).toEqual([22_000]);
    });
  });

  describe('income', () => {
    beforeAll(async () => {
      await incomes.insertMany([
        income(1, 'REALIZED_PNL', 100_000, { income: '12.345678901234567891' }),
        income(2, 'COMMISSION', 100_000),
        income(3, 'FUNDING_FEE', 100_500, { symbol: 'ETHUSDT', income: '-0.5' }),
        income(4, 'COMMISSION', 101_000, { symbol: 'ETHUSDT' }),
        income(5, 'REALIZED_PNL', 102_000),
        income(6, 'COMMISSION', 102_000, { userId: BOB }),
      ]);
    });
    const ids = (list: IncomeEntity[]) => list.map((i) => i.id);
    const byN = (...ns: number[]) => ns.map((n) => stableUuid(`income-${n}`));

    it('lists all types merged, newest first, truncated to the limit', async () => {
      const all = await incomes.listByUser(ALICE);
      expect(all).toHaveLength(5);
      expect(all.map((i) => i.time)).toEqual([102_000, 101_000, 100_500, 100_000, 100_000]);
      // Equal times are ordered by id, descending too.
      const tied = all.slice(3).map((i) => i.id);
      expect(tied).toEqual([...tied].sort().reverse());
      expect(all.find((i) => i.id === byN(1)[0])?.income).toBe('12.345678901234567891');
      expect(ids(await incomes.listByUser(ALICE, { limit: 2 }))).toEqual(byN(5, 4));
    });

    it('filters by one or several types, symbol and an inclusive time window', async () => {
      expect(ids(await incomes.listByUser(ALICE, { incomeType: 'COMMISSION' }))).toEqual(byN(4, 2));
      expect(
        (await incomes.listByUser(ALICE, { incomeType: ['FUNDING_FEE', 'REALIZED_PNL'] })).map(
          (i) => i.incomeType,
        ),
      ).toEqual(['REALIZED_PNL', 'FUNDING_FEE', 'REALIZED_PNL']);
      expect(ids(await incomes.listByUser(ALICE, { symbol: 'ETHUSDT' }))).toEqual(byN(4, 3));
      expect(ids(await incomes.listByUser(ALICE, { startTime: 100_500, endTime: 101_000 }))).toEqual(
        byN(4, 3),
      );
      expect(ids(await incomes.listByUser(ALICE, { incomeType: [] }))).toHaveLength(5);
      expect(ids(await incomes.listByUser(BOB))).toEqual(byN(6));
      expect(await incomes.insertMany([income(1, 'REALIZED_PNL', 1)])).toBe(0);
    });

    it.each([
      [{ incomeType: 'COMMISSION' as const }, 'income_user_type_time_idx'],
      [{}, 'income_user_time_idx'],
    ])('serves %j from the index %s, in index order (no sort)', async (filter, index) => {
      const [sql, params] = incomes
        .query(ALICE, { ...filter, startTime: 1, limit: 10 })
        .getQueryAndParameters();
      const runner = db.dataSource.createQueryRunner();
      try {
        await runner.startTransaction();
        // The table is tiny: make the planner show the plan it would use on a large one.
        await runner.query('SET LOCAL enable_seqscan = off');
        const plan: { 'QUERY PLAN': string }[] = await runner.query(`EXPLAIN ${sql}`, params);
        const text = plan.map((r) => r['QUERY PLAN']).join('\n');
        expect(text).toContain(`Index Scan Backward using ${index}`);
        expect(text).not.toMatch(/Sort/);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });
  });

  describe('hand-built INSERT statements', () => {
    const flat = (sql: string) => sql.replace(/\s+/g, ' ').trim();

    it("write the statements TypeORM's query builder writes", () => {
      const m = db.dataSource.manager;
      const rows = [trade(90), trade(91, { commissionAsset: undefined as unknown as string })];
      const [ignore] = insertStatements(m, TradeEntity, rows, { onConflict: 'ignore', returning: ['id'] });
      const built = m
        .createQueryBuilder()
        .insert()
        .into(TradeEntity)
        .values(rows)
        .orIgnore()
        .returning(['id'])
        .getQueryAndParameters();
      expect(ignore!.sql).toContain('DEFAULT');
      expect([flat(ignore!.sql), ignore!.params]).toEqual([flat(built[0]), built[1]]);

      const changed = [order(90), order(91, { status: 'FILLED' })];
      const names = db.dataSource.getMetadata(OrderEntity).columns.map((c) => c.databaseName);
      const [upsert] = insertStatements(m, OrderEntity, changed, {
        onConflict: { target: ['id'], update: names, skipUnchanged: true },
      });
      const builtUpsert = m
        .createQueryBuilder()
        .insert()
        .into(OrderEntity)
        .values(changed)
        .orUpdate(names, ['id'], { skipUpdateIfNoValuesChanged: true, upsertType: 'on-conflict-do-update' })
        .getQueryAndParameters();
      expect([flat(upsert!.sql), upsert!.params]).toEqual([flat(builtUpsert[0]), builtUpsert[1]]);
    });

    it('write any number of rows with one unnest statement whose text depends on the columns only', async () => {
      const m = db.dataSource.manager;
      const two = unnestStatement(m, TradeEntity, [trade(300), trade(301)], { onConflict: 'ignore' })!;
      const many = Array.from({ length: 50 }, (_, i) => trade(400 + i, { userId: BOB }));
      const fifty = unnestStatement(m, TradeEntity, many, { onConflict: 'ignore' })!;
      expect(fifty.sql).toBe(two.sql);
      expect(fifty.sql).toMatch(/SELECT \* FROM unnest\(\$1::uuid\[\]/);
      expect(fifty.params).toHaveLength(two.params.length);
      // The prepared statement inside a transaction (twice: prepared once), and written as given.
      await m.transaction(async (tx) => {
        expect(await new TradeRepository(tx).insertMany(many.slice(0, 20))).toBe(20);
        expect(await new TradeRepository(tx).insertMany(many)).toBe(30);
      });
      const back = await trades.listByUser(BOB, { limit: 1000 });
      const byId = new Map(back.map((t) => [t.id, t]));
      for (const t of many) expect(byId.get(t.id)).toEqual(t);
    });

    it('write a constant DEFAULT in some rows only as its value; leave a computed one to VALUES', async () => {
      const m = db.dataSource.manager;
      const mixed = [order(500), order(501, { workingType: undefined as unknown as string })];
      const statement = unnestStatement(m, OrderEntity, mixed)!;
      expect(statement.sql).toContain('working_type');
      await queryPrepared(m, statement);
      expect((await orders.findById(order(501).id))!.workingType).toBe('CONTRACT_PRICE');
      expect((await orders.findById(order(500).id))!.workingType).toBe(order(500).workingType);
      // Undefined in every row: the column is left out, so its DEFAULT applies as with VALUES.
      const none = mixed.map((o) => ({ ...o, workingType: undefined as unknown as string }));
      expect(unnestStatement(m, OrderEntity, none)!.sql).not.toContain('working_type');
      // now() is the database's to compute: some rows without created_at go to VALUES.
      // (payload, jsonb, has no array form: undefined in every row, it is left out.)
      const audit = (id: string, createdAt?: Date) =>
        ({ id, actor: 'a', action: 'b', payload: undefined, createdAt }) as unknown as AdminAuditEntity;
      expect(
        unnestStatement(m, AdminAuditEntity, [audit(stableUuid('x1'), new Date(0)), audit(stableUuid('x2'))]),
      ).toBeUndefined();
    });

    it('split rows beyond the parameter limit of one statement, inside one call', async () => {
      const many = Array.from({ length: 6_000 }, (_, i) => trade(10_000 + i, { userId: BOB }));
      expect(
        insertStatements(db.dataSource.manager, TradeEntity, many, { onConflict: 'ignore' }),
      ).toHaveLength(2);
      expect(await trades.insertMany(many)).toBe(6_000);
      expect(await trades.insertMany(many.slice(0, 10))).toBe(0);
      expect(await trades.listByUser(BOB, { limit: 1000 })).toHaveLength(1000);
    });
  });
});
