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

/**
 * Hot-store hash of a symbol's best bid and ask (`bidPrice`, `bidQty`, `askPrice`, `askQty`, and
 * the book's `seq` and `time`), written by the market-data projector with the L2 book it comes from.
 */
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
  return bookTopOf(symbol, await hot.hgetall(BOOK_TOP_KEY(symbol)));
}

/** The top of the book in a `BOOK_TOP_KEY` hash as read (`hgetall`). */
export function bookTopOf(symbol: string, row: Record<string, string>): BookTop {
  return {
    symbol,
    bid: { price: decimalOrZero(row.bidPrice), qty: decimalOrZero(row.bidQty) },
    ask: { price: decimalOrZero(row.askPrice), qty: decimalOrZero(row.askQty) },
    seq: row.seq === undefined ? -1 : Number(row.seq),
    time: Number(row.time ?? 0) || 0,
  };
}

/**
 * Hot-store hash of a symbol's open interest, written by the market-data projector from the
 * positions it follows (the turn that moves them, one `hset`): `long` and `short` in base units
 * (decimal strings) and `time`, the ms of the last trade that moved them (an ADL close included).
 */
export const OPEN_INTEREST_KEY = (symbol: string) => `oi:${symbol}`;
export const OI_FIELDS = { long: 'long', short: 'short', time: 'time' } as const;

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

/**
 * Hot-store hash of a symbol's L2 book (written only by the market-data projector): `seq` is the
 * engine book sequence of the last delta applied (Binance's lastUpdateId), `time` its time, and
 * one field per level, `b:<price>` or `a:<price>`, holding the level's quantity. A turn sets the
 * levels that changed and `seq`, and deletes the levels that emptied, in one step (`hupdate`); a
 * reader also skips a zero quantity (older writers stored one before deleting it).
 */
export const DEPTH_KEY = (symbol: string) => `depth:${symbol}`;
export const DEPTH_FIELDS = { seq: 'seq', time: 'time', bid: 'b:', ask: 'a:' } as const;

/** A projected L2 book, levels unsorted; `seq` -1 when nothing was projected yet. */
export interface ProjectedDepth {
  seq: number;
  time: number;
  bids: [price: string, qty: string][];
  asks: [price: string, qty: string][];
}

export async function readDepth(hot: HashReader, symbol: string): Promise<ProjectedDepth> {
  const row = await hot.hgetall(DEPTH_KEY(symbol));
  const depth: ProjectedDepth = {
    seq: row.seq === undefined ? -1 : Number(row.seq),
    time: Number(row.time ?? 0) || 0,
    bids: [],
    asks: [],
  };
  for (const field in row) {
    const qty = row[field]!;
    if (qty === '0') continue;
    if (field.startsWith(DEPTH_FIELDS.bid)) depth.bids.push([field.slice(2), qty]);
    else if (field.startsWith(DEPTH_FIELDS.ask)) depth.asks.push([field.slice(2), qty]);
  }
  return depth;
}

/** A string reader (libs/cache HotStore has it). */
export interface StringReader {
  get(key: string): Promise<string | undefined>;
}

/**
 * Hot-store string of a symbol's rolling 24 h statistics (JSON of `TickerState`), written by the
 * market-data projector after each turn with trades and again as the window rolls.
 */
export const TICKER_KEY = (symbol: string) => `ticker:${symbol}`;

/**
 * Hot-store string of the id of a symbol's last trade whose candles are in Postgres: written after
 * the market-data turn's database statement (the ticker is written before it), so a kline answer
 * cached under this version never holds candles older than it.
 */
export const CANDLES_VERSION_KEY = (symbol: string) => `candles-version:${symbol}`;

/** The 24 h figures as decimal strings; times in ms (first/last trade time 0 when none). */
/**
 * The public market projector's consumer group and its name in `processed_offsets`: its mark per
 * engine-event partition says which events candles, trades and tickers in Postgres include.
 */
export const PUBLIC_MARKET_CONSUMER = 'public-market';

export interface TickerState {
  openTime: number;
  closeTime: number;
  open: string;
  high: string;
  low: string;
  last: string;
  lastQty: string;
  volume: string;
  quoteVolume: string;
  count: number;
  firstTime: number;
  lastTime: number;
  /** Id (per-symbol sequence) of the last trade ever, and its price: the last price even after 24 h. */
  lastTradeId: number;
  lastPrice: string;
}

/** The projected ticker of a symbol, or undefined when no trade was ever projected. */
export async function readTicker(hot: StringReader, symbol: string): Promise<TickerState | undefined> {
  const raw = await hot.get(TICKER_KEY(symbol));
  return raw === undefined ? undefined : (JSON.parse(raw) as TickerState);
}
