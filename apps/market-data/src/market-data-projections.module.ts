import { Module } from '@nestjs/common';
import { BookTopProjector } from './book-top/book-top.projector';
import { OpenInterestProjector } from './open-interest/open-interest.projector';
import { SimulatedPriceFeed } from './prices/simulated-price-feed';

/**
 * The market-data projections of the engine-events log into the hot store: open interest per
 * symbol and the book's top; and the simulated index-price feed (PRICE_SOURCE=simulated).
 * Consumers and producers, so only the market-data process (and the embedded exchange) import
 * this; readers such as the gateway use `readOpenInterest` / `readBookTop`.
 */
@Module({ providers: [OpenInterestProjector, BookTopProjector, SimulatedPriceFeed] })
export class MarketDataProjectionsModule {}
