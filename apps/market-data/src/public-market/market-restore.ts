import type { HotEntry, HotStore } from '@perp/cache';
import {
  ADL_FIELDS,
  ADL_KEY,
  BOOK_TOP_KEY,
  CANDLES_VERSION_KEY,
  DEPTH_FIELDS,
  DEPTH_KEY,
  OI_FIELDS,
  OPEN_INTEREST_KEY,
  parseAdlSummary,
  readTicker,
  TICKER_KEY,
} from '@perp/contracts';
import { adlQuantilesHash } from '../adl/adl-quantiles';
import { bookTopFields } from '../book-top/book-top';
import { openInterestFields } from '../open-interest/open-interest';
import { tickerState } from './market-turn';
import type { SymbolMarket } from './symbol-market';

/** What `restoreHot` wrote again, by form (tests, logs). */
export type RestoredForm = 'depth' | 'bookTop' | 'ticker' | 'candlesVersion' | 'openInterest' | 'adl';

const behind = (stored: string | undefined, current: number) =>
  stored === undefined || !(Number(stored) >= current);

/**
 * Writes again the hot-store forms of a symbol that the hot store lost or holds older than
 * Postgres: an embedded exchange's memory store after a restart, a flushed or failed-over Redis.
 * A form at least as new is left alone: a turn writes the hot store before its statement, so after
 * a crash between the two the hot store is ahead, and the replayed turn brings Postgres up to it.
 * The ticker is computed at `now` (its 24 h window moves on as the roll does).
 */
export async function restoreHot(hot: HotStore, s: SymbolMarket, now: number): Promise<RestoredForm[]> {
  const symbol = s.symbol;
  const [depthSeq, topSeq, oiTime, ticker, version, adl] = await Promise.all([
    hot.hget(DEPTH_KEY(symbol), DEPTH_FIELDS.seq),
    hot.hget(BOOK_TOP_KEY(symbol), 'seq'),
    hot.hget(OPEN_INTEREST_KEY(symbol), OI_FIELDS.time),
    readTicker(hot, symbol),
    hot.get(CANDLES_VERSION_KEY(symbol)),
    hot.hget(ADL_KEY(symbol), ADL_FIELDS.summary),
  ]);
  const restored: RestoredForm[] = [];
  const writes: Promise<unknown>[] = [];
  const book = s.depth.lastUpdateId;
  if (book > 0 && behind(depthSeq, book)) {
    const hash: Record<string, string> = {
      [DEPTH_FIELDS.seq]: String(book),
      [DEPTH_FIELDS.time]: String(s.bookTime),
    };
    const levels = s.depth.toJSON();
    for (const [price, qty] of levels.bids) hash[DEPTH_FIELDS.bid + price] = qty;
    for (const [price, qty] of levels.asks) hash[DEPTH_FIELDS.ask + price] = qty;
    writes.push(hot.hupdate(DEPTH_KEY(symbol), hash, [], { replace: true }));
    restored.push('depth');
  }
  if (book > 0 && behind(topSeq, book)) {
    writes.push(hot.hset(BOOK_TOP_KEY(symbol), bookTopFields(s.depth, s.bookTime)));
    restored.push('bookTop');
  }
  const strings: HotEntry[] = [];
  const last = s.lastTrade;
  if (last && behind(ticker && String(ticker.lastTradeId), last.id)) {
    strings.push({
      key: TICKER_KEY(symbol),
      value: JSON.stringify(tickerState(s, Math.max(now, last.time))),
    });
    restored.push('ticker');
  }
  if (last && behind(version, last.id)) {
    strings.push({ key: CANDLES_VERSION_KEY(symbol), value: String(last.id) });
    restored.push('candlesVersion');
  }
  if (strings.length) writes.push(hot.setMany(strings));
  // Open interest carries no sequence: written again only when lost.
  if (oiTime === undefined && s.tradeSeq > 0) {
    writes.push(hot.hset(OPEN_INTEREST_KEY(symbol), openInterestFields(s.positions.positions, s.tradeTime)));
    restored.push('openInterest');
  }
  if (s.adl && parseAdlSummary(adl).seq < s.adl.seq) {
    writes.push(hot.hupdate(ADL_KEY(symbol), adlQuantilesHash(s.adl), [], { replace: true }));
    restored.push('adl');
  }
  await Promise.all(writes);
  return restored;
}
