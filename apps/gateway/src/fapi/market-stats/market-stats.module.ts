import { Module } from '@nestjs/common';
import { FapiFundingController } from './fapi-funding.controller';
import { FapiOpenInterestController } from './fapi-open-interest.controller';
import { FuturesDataController } from './futures-data.controller';
import { MarketStatsReader } from './market-stats.reader';
import { PriceAvailability } from './price-availability';

/**
 * Public market statistics on FAPI: mark price and funding, open interest, the futures-data
 * series. Needs the global RuntimeModule (MarketRegistry), PersistenceModule
 * (MarketDataRepository) and CacheModule.
 */
@Module({
  controllers: [FapiFundingController, FapiOpenInterestController, FuturesDataController],
  providers: [MarketStatsReader, PriceAvailability],
  exports: [MarketStatsReader, PriceAvailability],
})
export class FapiMarketStatsModule {}
