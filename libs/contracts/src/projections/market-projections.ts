import { Money, parseDecimal } from '@perp/domain';

/**
 * Market-data projections in the hot store: layout and readers. The market-data app writes them;
 * readers (the gateway) use these functions, so no app imports another.
 */

/** The one hot-store call the readers need (libs/cache HotStore has it). */
export interface HashReader {
  hgetall(key: string): Promise<Record<string, string>>;
}

const decimalOrZero = (v: string | undefined) => parseDecimal(v ?? '0') ?? new Money(0);

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

/** The projected top of a symbol's book; both sides empty when none was projected yet. */
export async function readBookTop(hot: HashReader, symbol: string): Promise<BookTop> {
  const row = await hot.hgetall(BOOK_TOP_KEY(symbol));
  return {
    symbol,
    bid: { price: decimalOrZero(row.bidPrice), qty: decimalOrZero(row.bidQty) },
    ask: { price: decimalOrZero(row.askPrice), qty: decimalOrZero(row.askQty) },
    seq: row.seq === undefined ? -1 : Number(row.seq),
    time: Number(row.time ?? 0) || 0,
  };
}

/** Hot-store hash of a symbol's open interest (written only by the open-interest projector). */
export const OPEN_INTEREST_KEY = (symbol: string) => `oi:${symbol}`;

/**
 * Fields of the hash: `long` and `short` (base units, decimal strings), `time` (ms of the last
 * trade applied) and, per engine-commands partition, `place:{partition}`: `offset/index` of the
 * last trade applied, read from the trade's id (the engine command behind it, see parseOutputId).
 * They change in one `hset`, so a redelivered or engine-replayed trade is recognised and dropped
 * whatever the crash point was: the projection is exactly once.
 */
export const OI_FIELDS = { long: 'long', short: 'short', time: 'time' } as const;
export const placeField = (partition: number) => `place:${partition}`;

export interface OpenInterest {
  symbol: string;
  long: Money;
  short: Money;
  /** Time of the last trade that changed it; 0 when none was ever seen. */
  time: number;
}

/** The projected open interest of a symbol (zero when no trade was ever projected). */
export async function readOpenInterest(hot: HashReader, symbol: string): Promise<OpenInterest> {
  const row = await hot.hgetall(OPEN_INTEREST_KEY(symbol));
  return {
    symbol,
    long: decimalOrZero(row[OI_FIELDS.long]),
    short: decimalOrZero(row[OI_FIELDS.short]),
    time: Number(row[OI_FIELDS.time] ?? 0) || 0,
  };
}
