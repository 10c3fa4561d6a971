import { Module } from '@nestjs/common';
import { KeeperClock } from './keeper-clock';

/**
 * The keeper: the clock on the log. Trigger, trailing and GTD decisions are made by the risk shards
 * that hold the orders (DESIGN: time is an input), from the marks and these ticks.
 */
@Module({ providers: [KeeperClock], exports: [KeeperClock] })
export class KeeperModule {}
