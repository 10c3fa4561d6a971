import { PUBLIC_MARKET_CONSUMER } from '@perp/contracts';
import type {
  BookSide,
  MarketAdlQuantilesEntity,
  MarketBookEntity,
  MarketBookLevelEntity,
} from '../entities';
import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { MarketDataRepository } from './market-data.repository';
import { MarketDataWrites } from './market-data-writes';
import { ProcessedOffsetRepository } from './processed-offset.repository';

const book = (symbol: string, partition: number, seq: number): MarketBookEntity => ({
  symbol,
  partition,
  seq,
  time: 1_700_000_000_000 + seq,
  tradeSeq: seq - 1,
  tradeTime: 1_600_000_000_000 + seq,
});

const level = (side: BookSide, price: string, qty: string, symbol = 'BTCUSDT'): MarketBookLevelEntity => ({
  symbol,
  side,
  price,
  qty,
});

const adl = (symbol: string, seq: number, long: unknown, short: unknown): MarketAdlQuantilesEntity => ({
  symbol,
  seq,
  time: 1_700_000_000_000 + seq,
  long: JSON.stringify(long),
  short: JSON.stringify(short),
});

describe('market books and ADL quantiles, written with the turn mark (real Postgres)', () => {
  let db: TestDatabase;
  let marks: ProcessedOffsetRepository;
  let md: MarketDataRepository;
  // Partition 0 of the engine events, as the public-market projector marks its turns.
  const at = (offset: string) => ({
    consumer: PUBLIC_MARKET_CONSUMER,
    topic: 'engine.events',
    partition: 0,
    offset,
  });

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 2 });
    marks = new ProcessedOffsetRepository(db.dataSource.manager);
    md = new MarketDataRepository(db.dataSource.manager);
  });
  afterAll(() => db?.close());

  it('keeps the batch one statement: every new write has an unnest form', () => {
    const writes = new MarketDataWrites()
      .saveBooks([book('BTCUSDT', 0, 1)])
      .saveBookLevels([level('BID', '100', '1'), level('ASK', '101', '0')])
      .saveAdlQuantiles([adl('BTCUSDT', 1, [], [])]);
    const parts = writes.batch.compile(db.dataSource.manager, [], 'EXISTS (SELECT FROM mark)');
    expect(parts).toBeDefined();
    expect(parts).toHaveLength(4); // book upsert, level upsert, level delete, ADL upsert
  });

  it('stores books with exact price strings, ordered by the numeric value', async () => {
    const first = new MarketDataWrites()
      .saveBooks([book('BTCUSDT', 0, 10), book('ETHUSDT', 1, 3), book('SOLUSDT', 0, 7)])
      // Text order differs from numeric order on both sides.
      .saveBookLevels([
        level('BID', '99.5', '1'),
        level('BID', '100.50', '2.000'),
        level('BID', '9.75', '3'),
        level('ASK', '1000.0', '4'),
        level('ASK', '101', '5'),
        level('ASK', '102.250', '6'),
        level('ASK', '2000', '1', 'ETHUSDT'),
      ]);
    expect(await marks.applyWritesOnce(at('10'), first.batch)).toBe(true);
    expect(await md.book('BTCUSDT')).toEqual({
      seq: 10,
      time: 1_700_000_000_010,
      tradeSeq: 9,
      tradeTime: 1_600_000_000_010,
      bids: [
        ['100.50', '2.000'],
        ['99.5', '1'],
        ['9.75', '3'],
      ],
      asks: [
        ['101', '5'],
        ['102.250', '6'],
        ['1000.0', '4'],
      ],
    });
    expect(await md.book('SOLUSDT')).toEqual({
      seq: 7,
      time: 1_700_000_000_007,
      tradeSeq: 6,
      tradeTime: 1_600_000_000_007,
      bids: [],
      asks: [],
    });
    expect(await md.book('XRPUSDT')).toBeUndefined();
  });

  it("upserts a level's quantity and deletes a level whose quantity reaches zero", async () => {
    const second = new MarketDataWrites()
      .saveBooks([book('BTCUSDT', 0, 11)])
      .saveBookLevels([
        level('BID', '100.50', '2.5'),
        level('BID', '99.5', '0.000'),
        level('ASK', '101', '0'),
        level('ASK', '100.75', '0.25'),
      ]);
    expect(await marks.applyWritesOnce(at('11'), second.batch)).toBe(true);
    expect(await md.book('BTCUSDT')).toEqual({
      seq: 11,
      time: 1_700_000_000_011,
      tradeSeq: 10,
      tradeTime: 1_600_000_000_011,
      bids: [
        ['100.50', '2.5'],
        ['9.75', '3'],
      ],
      asks: [
        ['100.75', '0.25'],
        ['102.250', '6'],
        ['1000.0', '4'],
      ],
    });
    // Another symbol's level at the same side is not touched by the delete.
    expect((await md.book('ETHUSDT'))?.asks).toEqual([['2000', '1']]);
  });

  it('finds the symbols of a partition', async () => {
    expect(await md.bookSymbols(0)).toEqual(['BTCUSDT', 'SOLUSDT']);
    expect(await md.bookSymbols(1)).toEqual(['ETHUSDT']);
    expect(await md.bookSymbols(2)).toEqual([]);
  });

  it('round-trips ADL quantiles as the JSON the event carried', async () => {
    const long = [
      ['0x00000000000000000000000000000000000000a1', 5],
      ['0x00000000000000000000000000000000000000a2', 1],
    ];
    const turn = new MarketDataWrites().saveAdlQuantiles([adl('BTCUSDT', 12, long, [])]);
    expect(await marks.applyWritesOnce(at('12'), turn.batch)).toBe(true);
    const stored = await md.adlQuantiles('BTCUSDT');
    expect(stored).toEqual(adl('BTCUSDT', 12, long, []));
    expect(JSON.parse(stored!.long)).toEqual(long);

    const next = new MarketDataWrites().saveAdlQuantiles([adl('BTCUSDT', 13, [], long)]);
    expect(await marks.applyWritesOnce(at('13'), next.batch)).toBe(true);
    expect(await md.adlQuantiles('BTCUSDT')).toEqual(adl('BTCUSDT', 13, [], long));
    expect(await md.adlQuantiles('ETHUSDT')).toBeUndefined();
  });

  it('applies nothing for a replayed turn (same mark)', async () => {
    const replay = new MarketDataWrites()
      .saveBooks([book('BTCUSDT', 1, 99), book('XRPUSDT', 0, 1)])
      .saveBookLevels([level('BID', '100.50', '0'), level('ASK', '100.75', '9')])
      .saveAdlQuantiles([adl('BTCUSDT', 99, [], [])]);
    const before = await md.book('BTCUSDT');
    expect(await marks.applyWritesOnce(at('13'), replay.batch)).toBe(false);
    expect(await md.book('BTCUSDT')).toEqual(before);
    expect(await md.book('XRPUSDT')).toBeUndefined();
    expect(await md.bookSymbols(0)).toEqual(['BTCUSDT', 'SOLUSDT']);
    expect((await md.adlQuantiles('BTCUSDT'))?.seq).toBe(13);
    expect(await marks.get(PUBLIC_MARKET_CONSUMER, 'engine.events', 0)).toBe('13');
  });
});
