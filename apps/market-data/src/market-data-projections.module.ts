import { Module } from '@nestjs/common';
import { AdlQuantilesProjector } from './adl/adl-quantiles.projector';
import { BookTopProjector } from './book-top/book-top.projector';
import { MarkPriceStage } from './mark-price/mark-price.stage';
import { OpenInterestProjector } from './open-interest/open-interest.projector';
import { PriceCandlesProjector } from './public-market/price-candles.projector';
import { PublicMarketProjector } from './public-market/public-market.projector';
import { IndexSourceFeed } from './prices/index-source-feed';
import { SimulatedPriceFeed } from './prices/simulated-price-feed';

/**
 * The market-data projections: public trades, aggregated trades, candles, tickers, the L2 book and
 * futures-data statistics (Postgres and the hot store); open interest per symbol and the book's top
 * (hot store); the ADL quantiles per symbol (hot store); the mark price (price.mark events from index ticks and the book); index, mark and
 * premium candles; and the index-price feeds: simulated (PRICE_SOURCE=simulated)
 * or the composite of each market's configured sources (PRICE_SOURCE=composite).
 * Consumers and producers, so only the market-data process (and the embedded exchange) import
 * this; readers such as the gateway use the readers in @perp/contracts and @perp/persistence.
 */
@Module({
  providers: [
    OpenInterestProjector,
    AdlQuantilesProjector,
    BookTopProjector,
    PublicMarketProjector,
    PriceCandlesProjector,
    MarkPriceStage,
    SimulatedPriceFeed,
    IndexSourceFeed,
  ],
})
export class MarketDataProjectionsModule {}
