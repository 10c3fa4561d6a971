import { Inject, Injectable } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import type { EngineEvent } from '@perp/contracts';
import { EngineEventsProjector } from '../engine-events/engine-events-projector';
import { projectTrade } from './open-interest';

export const OPEN_INTEREST_GROUP = 'open-interest';

/**
 * Per-symbol long and short open interest from the engine's trade events (their open/close split),
 * kept in the hot store (`oi:{symbol}`) for the native open-interest endpoint. Exactly once: the
 * hash carries, per engine partition, the place of the last trade applied (see OI_FIELDS).
 */
@Injectable()
export class OpenInterestProjector extends EngineEventsProjector {
  constructor(
    bus: Bus,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {
    super(bus, OPEN_INTEREST_GROUP);
  }

  protected async project(event: EngineEvent): Promise<void> {
    if (event.type === 'trade') await projectTrade(this.hot, event);
  }
}
