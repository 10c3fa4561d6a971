import { Module } from '@nestjs/common';
import { TickerBook } from './ticker-book';

/**
 * The 24 h tickers: one TickerBook per process, whichever apps import the module (market-data
 * feeds it, the gateway serves it), so no app imports another for it.
 */
@Module({ providers: [TickerBook], exports: [TickerBook] })
export class TickersModule {}
