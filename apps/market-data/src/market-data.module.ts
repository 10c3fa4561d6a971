import { Module } from '@nestjs/common';

/**
 * Market data's shared providers (none yet): the projections live in MarketDataProjectionsModule,
 * and readers such as the gateway read what they write from the hot store and Postgres.
 */
@Module({})
export class MarketDataModule {}
