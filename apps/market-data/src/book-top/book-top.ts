import type { HotStore } from '@perp/cache';
import { BOOK_TOP_KEY, type EngineEvent } from '@perp/contracts';

// The layout and reader are contracts, shared with the gateway.
export { BOOK_TOP_KEY, type BookTop, readBookTop, type TopLevel } from '@perp/contracts';

type BookTopEvent = Extract<EngineEvent, { type: 'book.top' }>;

/**
 * The fields to write for a `book.top` event, or undefined when the stored top is as new or newer
 * (the engine's per-symbol `seq` only grows, so a replay or a late copy never moves it backwards).
 */
export function nextBookTop(
  stored: Record<string, string>,
  event: BookTopEvent,
): Record<string, string> | undefined {
  if (stored.seq !== undefined && event.seq <= Number(stored.seq)) return undefined;
  return {
    bidPrice: event.bidPrice,
    bidQty: event.bidQty,
    askPrice: event.askPrice,
    askQty: event.askQty,
    seq: String(event.seq),
    time: String(event.time),
  };
}

export async function projectBookTop(hot: HotStore, event: BookTopEvent): Promise<boolean> {
  const key = BOOK_TOP_KEY(event.symbol);
  const next = nextBookTop(await hot.hgetall(key), event);
  if (!next) return false;
  await hot.hset(key, next);
  return true;
}
