import { Inject, Injectable } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import type { EngineEvent } from '@perp/contracts';
import { EngineEventsProjector } from '../engine-events/engine-events-projector';
import { projectBookTop } from './book-top';

export const BOOK_TOP_GROUP = 'book-top';

/**
 * The best bid and ask of each symbol from the engine's `book.top` events, kept in the hot store
 * (`book-top:{symbol}`). The engine publishes no deeper levels, so this is all of the book a
 * process other than the engine can see.
 */
@Injectable()
export class BookTopProjector extends EngineEventsProjector {
  constructor(
    bus: Bus,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {
    super(bus, BOOK_TOP_GROUP);
  }

  protected async project(event: EngineEvent): Promise<void> {
    if (event.type === 'book.top') await projectBookTop(this.hot, event);
  }
}
