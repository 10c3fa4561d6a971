import type { HotStore } from '@perp/cache';
import type { EngineEvent } from '@perp/contracts';
import { Money, parseDecimal } from '@perp/domain';

type BookTopEvent = Extract<EngineEvent, { type: 'book.top' }>;

/** Hot-store hash of a symbol's best bid and ask (written only by the book-top projector). */
export const BOOK_TOP_KEY = (symbol: string) => `book-top:${symbol}`;

/** One side's best level; price and quantity 0 when the side is empty. */
export interface TopLevel {
  price: Money;
  qty: Money;
}

export interface BookTop {
  symbol: string;
  bid: TopLevel;
  ask: TopLevel;
  /** The engine's per-symbol sequence number of the change; -1 when nothing was projected. */
  seq: number;
  time: number;
}

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

/** The projected top of a symbol's book; both sides empty when none was projected yet. */
export async function readBookTop(hot: HotStore, symbol: string): Promise<BookTop> {
  const row = await hot.hgetall(BOOK_TOP_KEY(symbol));
  const num = (v: string | undefined) => parseDecimal(v ?? '0') ?? new Money(0);
  return {
    symbol,
    bid: { price: num(row.bidPrice), qty: num(row.bidQty) },
    ask: { price: num(row.askPrice), qty: num(row.askQty) },
    seq: row.seq === undefined ? -1 : Number(row.seq),
    time: Number(row.time ?? 0) || 0,
  };
}
