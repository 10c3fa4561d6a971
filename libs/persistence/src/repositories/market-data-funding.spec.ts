import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { MarketDataRepository } from './market-data.repository';

describe('market-data funding reads (real Postgres)', () => {
  let db: TestDatabase;
  let md: MarketDataRepository;

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 1 });
    md = new MarketDataRepository(db.dataSource.manager);
  });
  afterAll(() => db?.close());

  it("answers each symbol's latest settled rate, and nothing for a symbol without one", async () => {
    expect(await md.latestFundingRates()).toEqual([]);
    await md.insertFundingRates([
      { symbol: 'ETHUSDT', fundingTime: 8, fundingRate: '-0.0001', markPrice: '10' },
      { symbol: 'BTCUSDT', fundingTime: 16, fundingRate: '0.0002', markPrice: '101' },
      { symbol: 'BTCUSDT', fundingTime: 8, fundingRate: '0.0001', markPrice: '100' },
    ]);
    expect(await md.latestFundingRates()).toEqual([
      { symbol: 'BTCUSDT', fundingTime: 16, fundingRate: '0.0002', markPrice: '101' },
      { symbol: 'ETHUSDT', fundingTime: 8, fundingRate: '-0.0001', markPrice: '10' },
    ]);
  });
});
