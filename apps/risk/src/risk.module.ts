import { Module } from '@nestjs/common';
import { HistoryProjector } from './projections/history-projector';
import { RiskCommandsConsumer } from './risk-commands.consumer';
import { RiskRouter } from './router/risk-router';

/**
 * Risk shards (users by hash): pre-trade margin freeze, settlement of fills, the account
 * projections; the router copying marks, funding rounds and clock ticks into every partition; the
 * history projector writing orders, trades and income to Postgres.
 */
@Module({ providers: [RiskCommandsConsumer, RiskRouter, HistoryProjector] })
export class RiskModule {}
