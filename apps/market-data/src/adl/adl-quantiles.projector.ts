import { Inject, Injectable } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import type { EngineEvent } from '@perp/contracts';
import { EngineEventsProjector } from '../engine-events/engine-events-projector';
import { projectAdlQuantiles } from './adl-quantiles';

export const ADL_QUANTILES_GROUP = 'adl-quantiles';

/**
 * The engine's ADL quantiles per symbol (`adl.quantiles`) into the hot store (`adl:{symbol}`) for
 * GET /fapi/v1/adlQuantile and the native ADL rankings. Market data owns it: the event is a
 * per-symbol engine event, like the book and open interest this app already projects, and the
 * risk router copies to user shards only what settles money. Idempotent by the engine's sequence.
 */
@Injectable()
export class AdlQuantilesProjector extends EngineEventsProjector {
  constructor(
    bus: Bus,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {
    super(bus, ADL_QUANTILES_GROUP);
  }

  protected async project(event: EngineEvent): Promise<void> {
    if (event.type === 'adl.quantiles') await projectAdlQuantiles(this.hot, event);
  }
}
