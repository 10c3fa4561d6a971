import { Module } from '@nestjs/common';

/** order books and matching; shards own symbols. No business logic yet: see README's status table. */
@Module({})
export class MatchingEngineModule {}
