import { stableUuid } from '@perp/contracts';
import { AdminAuditEntity, type MarketPositionEntity, type MarketTradeEntity } from '../entities';
import { tickerMinute } from '../testing/market-rows';
import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { MarketDataRepository } from './market-data.repository';
import { MarketDataWrites } from './market-data-writes';
import { ProcessedOffsetRepository } from './processed-offset.repository';
import { WriteBatch } from './write-batch';

const trade = (id: number, price = '100'): MarketTradeEntity => ({
  symbol: 'BTCUSDT',
  id,
  tradeId: stableUuid(`wb${id}`),
  price,
  qty: '1',
  quoteQty: price,
  takerSide: 'BUY',
  takerOrderId: 'o1',
  time: 1_000 + id,
});

const minute = tickerMinute;

const position = (user: string, size: string): MarketPositionEntity => ({ symbol: 'BTCUSDT', user, size });

describe('a turn written as one statement with its mark (real Postgres)', () => {
  let db: TestDatabase;
  let marks: ProcessedOffsetRepository;
  let md: MarketDataRepository;
  const at = (offset: string, partition = 0) => ({
    consumer: 'wb',
    topic: 'engine.events',
    partition,
    offset,
  });

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 4 });
    marks = new ProcessedOffsetRepository(db.dataSource.manager);
    md = new MarketDataRepository(db.dataSource.manager);
  });
  afterAll(() => db?.close());

  it('compiles inserts, upserts and deletes into sub-statements of one WITH, each behind the guard', () => {
    const params: unknown[] = ['a', 'b', 0, '1'];
    const batch = new MarketDataWrites()
      .insertTrades([trade(1)])
      .saveTickerMinutes([minute(120_000, '1')], 60_000)
      .savePositions([position('0xa', '1'), position('0xb', '0')]).batch;
    const parts = batch.compile(db.dataSource.manager, params, 'EXISTS (SELECT FROM mark)')!;
    expect(parts).toHaveLength(5);
    for (const part of parts) expect(part).toContain('EXISTS (SELECT FROM mark)');
    // Parameters continue after the caller's; one array per column, however many rows.
    expect(parts[0]).toMatch(/^INSERT INTO .* SELECT \* FROM unnest\(\$5::/);
    expect(params.length).toBeGreaterThan(4);
    expect(params.slice(0, 4)).toEqual(['a', 'b', 0, '1']);
  });

  it('applies every write and moves the mark once; the same turn again writes nothing', async () => {
    const first = new MarketDataWrites()
      .insertTrades([trade(1), trade(2)])
      .saveTickerMinutes([minute(0, '1'), minute(60_000, '2')])
      .savePositions([position('0xa', '1'), position('0xb', '-1'), position('0xc', '2')]);
    expect(await marks.applyWritesOnce(at('10'), first.batch)).toBe(true);
    expect(await marks.get('wb', 'engine.events', 0)).toBe('10');

    // Later turn: a minute pruned, a position closed, another moved, a trade added.
    const second = new MarketDataWrites()
      .insertTrades([trade(3)])
      .saveTickerMinutes([minute(120_000, '3')], 60_000)
      .savePositions([position('0xa', '0'), position('0xb', '-2')]);
    expect(await marks.applyWritesOnce(at('11'), second.batch)).toBe(true);

    // The same turn delivered again (a replay) and an older one: refused, nothing changes.
    const replay = new MarketDataWrites()
      .insertTrades([trade(4)])
      .savePositions([position('0xc', '0')])
      .saveTickerMinutes([minute(180_000, '4')], 10_000_000);
    expect(await marks.applyWritesOnce(at('11'), replay.batch)).toBe(false);
    expect(await marks.applyWritesOnce(at('9'), replay.batch)).toBe(false);

    expect((await md.trades('BTCUSDT', 10)).map((t) => t.id)).toEqual([1, 2, 3]);
    expect((await md.tickerMinutesSince('BTCUSDT', 0)).map((m) => [m.openTime, m.close])).toEqual([
      [60_000, '2'],
      [120_000, '3'],
    ]);
    expect(await md.positions('BTCUSDT')).toEqual([position('0xb', '-2'), position('0xc', '2')]);
    expect(await marks.get('wb', 'engine.events', 0)).toBe('11');
  });

  it('a failing write fails the whole statement: no other write and no mark', async () => {
    // Two rows with one conflict target in one upsert: Postgres refuses the statement.
    const bad = new MarketDataWrites()
      .insertTrades([trade(20)])
      .savePositions([position('0xd', '1'), position('0xd', '2')]);
    await expect(marks.applyWritesOnce(at('5', 1), bad.batch)).rejects.toThrow(/affect row a second time/);
    expect(await marks.get('wb', 'engine.events', 1)).toBeUndefined();
    expect((await md.trades('BTCUSDT', 10)).map((t) => t.id)).not.toContain(20);
  });

  it('lets only one of two racing owners apply the same turn', async () => {
    const turn = (price: string) => new MarketDataWrites().insertTrades([trade(30, price)]).batch;
    const results = await Promise.all([
      marks.applyWritesOnce(at('7', 2), turn('1')),
      marks.applyWritesOnce(at('7', 2), turn('2')),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect((await md.trades('BTCUSDT', 10)).filter((t) => t.id === 30)).toHaveLength(1);
  });

  it('rows without an unnest form (jsonb) take the transaction, still once', async () => {
    const audit = (id: string) =>
      new WriteBatch().insert(AdminAuditEntity, [
        { id, actor: 'op', action: 'pause', payload: { symbol: 'BTCUSDT' }, createdAt: new Date(0) },
      ]);
    const id = stableUuid('audit-1');
    expect(audit(id).compile(db.dataSource.manager, [], 'true')).toBeUndefined();
    expect(await marks.applyWritesOnce(at('3', 3), audit(id))).toBe(true);
    expect(await marks.applyWritesOnce(at('3', 3), audit(stableUuid('audit-2')))).toBe(false);
    const rows = await db.dataSource.getRepository(AdminAuditEntity).find();
    expect(rows.map((r) => [r.id, r.payload])).toEqual([[id, { symbol: 'BTCUSDT' }]]);
  });
});
