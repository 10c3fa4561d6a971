import { Module } from '@nestjs/common';
import { MarkPriceStage } from './mark-price/mark-price.stage';
import { PricesProjector } from './public-market/prices.projector';
import { PublicMarketProjector } from './public-market/public-market.projector';
import { IndexSourceFeed } from './prices/index-source-feed';
import { SimulatedPriceFeed } from './prices/simulated-price-feed';

/**
 * The market-data projections: public trades, aggregated trades, candles, tickers, the L2 book and
 * its top, open interest, futures-data statistics and the ADL quantiles (Postgres and the hot
 * store, one projector); the mark price (price.mark events from index ticks and the book); index,
 * mark and premium candles and the latest prices readers use (Postgres and the hot store); and the index-price feeds: simulated (PRICE_SOURCE=simulated) or the
 * composite of each market's configured sources (PRICE_SOURCE=composite).
 * Consumers and producers, so only the market-data process (and the embedded exchange) import
 * this; readers such as the gateway use the readers in @perp/contracts and @perp/persistence.
 */
@Module({
  providers: [PublicMarketProjector, PricesProjector, MarkPriceStage, SimulatedPriceFeed, IndexSourceFeed],
})
export class MarketDataProjectionsModule {}
