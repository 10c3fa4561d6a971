import { Module } from '@nestjs/common';
import { RiskClient } from './risk-client';

/** One RiskClient for every gateway module that sends commands to the risk shards. */
@Module({ providers: [RiskClient], exports: [RiskClient] })
export class RiskClientModule {}
