import { Module } from '@nestjs/common';
import { MarketDataRepository, PERSISTENCE_DATA_SOURCE } from '@perp/persistence';
import type { DataSource } from 'typeorm';
import { FapiFundingController } from './fapi-funding.controller';
import { FapiOpenInterestController } from './fapi-open-interest.controller';
import { FuturesDataController } from './futures-data.controller';
import { MarketStatsReader } from './market-stats.reader';

/**
 * Public market statistics on FAPI: mark price and funding, open interest, the futures-data
 * series. Needs the global RuntimeModule (MarketRegistry), PersistenceModule and CacheModule.
 */
@Module({
  controllers: [FapiFundingController, FapiOpenInterestController, FuturesDataController],
  providers: [
    MarketStatsReader,
    {
      provide: MarketDataRepository,
      inject: [PERSISTENCE_DATA_SOURCE],
      useFactory: (ds: DataSource) => new MarketDataRepository(ds.manager),
    },
  ],
})
export class FapiMarketStatsModule {}
