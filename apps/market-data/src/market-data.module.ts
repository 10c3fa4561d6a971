import { Module } from '@nestjs/common';
import { TickerBook } from './ticker/ticker-book';

/** Market data: 24 h tickers today; klines, index and mark price come with their issues. */
@Module({ providers: [TickerBook], exports: [TickerBook] })
export class MarketDataModule {}
