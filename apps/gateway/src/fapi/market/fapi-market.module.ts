import { Module } from '@nestjs/common';
import { DepthCache } from './depth-cache';
import { FapiDepthController } from './fapi-depth.controller';
import { FapiKlinesController } from './fapi-klines.controller';
import { FapiTickersController } from './fapi-tickers.controller';
import { FapiTradesController } from './fapi-trades.controller';
import { KlineReader } from './kline-reader';

/**
 * FAPI public market data: book, trades, klines and tickers, read from the projections the
 * market-data service writes (hot store and Postgres), so every gateway replica answers the same.
 * Needs the global PersistenceModule (MarketDataRepository) and CacheModule.
 */
@Module({
  controllers: [FapiDepthController, FapiTradesController, FapiKlinesController, FapiTickersController],
  providers: [DepthCache, KlineReader],
  // Native max_slippage simulates fills against the same sorted book.
  exports: [DepthCache, KlineReader],
})
export class FapiMarketModule {}
