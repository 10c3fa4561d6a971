import { Module } from '@nestjs/common';
import { TickersModule } from '@perp/infrastructure';

/** Market data: 24 h tickers today; klines, index and mark price come with their issues. */
@Module({ imports: [TickersModule], exports: [TickersModule] })
export class MarketDataModule {}
