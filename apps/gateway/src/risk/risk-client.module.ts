import { Module } from '@nestjs/common';
import { RiskClient } from './risk-client';
import { TimedRiskClient } from './timed-risk-client';

/** One RiskClient for every gateway module that sends commands to the risk shards. */
@Module({ providers: [{ provide: RiskClient, useClass: TimedRiskClient }], exports: [RiskClient] })
export class RiskClientModule {}
