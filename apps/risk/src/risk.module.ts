import { Module } from '@nestjs/common';

/** pre-trade margin freeze and settlement; shards own users. No business logic yet: see README's status table. */
@Module({})
export class RiskModule {}
