import type { DepthBook } from '@perp/domain';

// The layout and reader are contracts, shared with the gateway.
export { BOOK_TOP_KEY, type BookTop, readBookTop, type TopLevel } from '@perp/contracts';

/**
 * The `BOOK_TOP_KEY` hash of a projected L2 book: its best level per side (price and quantity "0"
 * when the side is empty) at the book's sequence, the same figures as the engine's `book.top`.
 */
export function bookTopFields(book: DepthBook, time: number): Record<string, string> {
  const top = book.top(1);
  const [bid, ask] = [top.bids[0], top.asks[0]];
  return {
    bidPrice: bid?.[0] ?? '0',
    bidQty: bid?.[1] ?? '0',
    askPrice: ask?.[0] ?? '0',
    askQty: ask?.[1] ?? '0',
    seq: String(book.lastUpdateId),
    time: String(time),
  };
}
