import { Module } from '@nestjs/common';

/** funding rates and their settlement. No business logic yet: see README's status table. */
@Module({})
export class FundingModule {}
