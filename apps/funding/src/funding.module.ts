import { Module } from '@nestjs/common';
import { FundingStage } from './settlement/funding.stage';

/**
 * Funding rates and their settlement: one `funding.settle` per market and funding time, from the
 * marks market data publishes (settlement/funding.stage.ts). Risk shards apply the payments.
 */
@Module({ providers: [FundingStage] })
export class FundingModule {}
