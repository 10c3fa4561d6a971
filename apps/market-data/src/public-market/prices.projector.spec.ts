import { type BusMessage, MemoryBus } from '@perp/bus';
import { MemoryHotStore } from '@perp/cache';
import { HOT_KEYS, type PriceEvent, TOPICS, topicPartitions } from '@perp/contracts';
import {
  MarketDataRepository,
  openTestDatabase,
  ProcessedOffsetRepository,
  type TestDatabase,
} from '@perp/persistence';
import { PricesProjector } from './prices.projector';

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const PARTITION = 2;

const index = (time: number, indexPrice: string): PriceEvent => ({
  id: `i/${time}`,
  v: 1,
  time,
  type: 'price.index',
  symbol: 'ETHUSDT',
  indexPrice,
  source: 'admin',
});

const mark = (time: number, markPrice: string): PriceEvent => ({
  id: `m/${time}`,
  v: 1,
  time,
  type: 'price.mark',
  symbol: 'ETHUSDT',
  markPrice,
  indexPrice: '3000',
  lastPrice: '2999.5',
  premiumIndex: '0.0001',
  fundingRate: '0.0001',
  interestRate: '0.0001',
  nextFundingTime: T0 + 8 * 3600_000,
});

const messages = (events: PriceEvent[], firstOffset: number): BusMessage[] =>
  events.map((value, i) => ({
    topic: TOPICS.prices.name,
    partition: PARTITION,
    offset: String(firstOffset + i),
    key: 'ETHUSDT',
    value,
    headers: {},
    timestamp: 0,
  }));

describe('prices projection (real Postgres, memory hot store)', () => {
  let db: TestDatabase;
  let hot: MemoryHotStore;
  let repo: MarketDataRepository;
  const projector = (store = hot) =>
    new PricesProjector(
      new MemoryBus({ topics: topicPartitions() }),
      new ProcessedOffsetRepository(db.dataSource.manager),
      repo,
      store,
    );

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 2 });
    hot = new MemoryHotStore();
    repo = new MarketDataRepository(db.dataSource.manager);
    await projector().handleTurn(
      messages(
        [index(T0, '3000'), mark(T0, '3001.25'), index(T0 + 1_000, '3000'), mark(T0 + 1_000, '3002')],
        0,
      ),
    );
  });
  afterAll(async () => {
    await hot.close();
    await db?.close();
  });

  it('writes the latest mark to the price hash and keeps it, with the candles, in Postgres', async () => {
    expect(await hot.hgetall(HOT_KEYS.price('ETHUSDT'))).toEqual({
      markPrice: '3002',
      indexPrice: '3000',
      lastPrice: '2999.5',
      fundingRate: '0.0001',
      nextFundingTime: String(T0 + 8 * 3600_000),
      time: String(T0 + 1_000),
    });
    expect((await repo.latestPrices(PARTITION)).map((r) => [r.symbol, r.markPrice, r.time])).toEqual([
      ['ETHUSDT', '3002', T0 + 1_000],
    ]);
    const [one] = await repo.candles('ETHUSDT', 'mark', '1m', { limit: 1 });
    expect([one!.open, one!.close, one!.high]).toEqual(['3001.25', '3002', '3002']);
  });

  it('a new owner writes the price hash again when the hot store lost it', async () => {
    const fresh = new MemoryHotStore();
    expect(await projector(fresh).restore(PARTITION)).toEqual(['ETHUSDT']);
    expect(await fresh.hgetall(HOT_KEYS.price('ETHUSDT'))).toEqual(
      await hot.hgetall(HOT_KEYS.price('ETHUSDT')),
    );
    expect(await projector(new MemoryHotStore()).restore(PARTITION + 1)).toEqual([]);
    await fresh.close();
  });

  it('a hash as new or newer is left alone', async () => {
    expect(await projector().restore(PARTITION)).toEqual([]);
    const store = new MemoryHotStore();
    await store.hset(HOT_KEYS.price('ETHUSDT'), { markPrice: '3100', time: String(T0 + 5_000) });
    expect(await projector(store).restore(PARTITION)).toEqual([]);
    expect(await store.hget(HOT_KEYS.price('ETHUSDT'), 'markPrice')).toBe('3100');
    await store.close();
  });

  it('the same mark again changes nothing; the next goes on', async () => {
    await projector().handleTurn(messages([mark(T0 + 1_000, '3002')], 3));
    await projector().handleTurn(messages([mark(T0 + 2_000, '3003')], 4));
    expect(await hot.hget(HOT_KEYS.price('ETHUSDT'), 'markPrice')).toBe('3003');
    expect((await repo.latestPrices(PARTITION))[0]!.markPrice).toBe('3003');
  });
});
