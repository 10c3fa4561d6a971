import { Module } from '@nestjs/common';
import { EngineCommandsConsumer } from './engine-commands.consumer';
import { MarketAdmin } from './markets/market-admin';

/** Matching-engine shards: consume engine commands of the symbols' partitions they own. */
@Module({ providers: [MarketAdmin, EngineCommandsConsumer] })
export class MatchingEngineModule {}
