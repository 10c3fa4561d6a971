import { Module } from '@nestjs/common';

/** trigger orders, trailing stops and GTD expiry. No business logic yet: see README's status table. */
@Module({})
export class KeeperModule {}
