import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { CANDLES_VERSION_KEY } from '@perp/contracts';
import {
  bucketOpen,
  type Candle,
  fillCandleGaps,
  firstBucketAtOrAfter,
  type KlineInterval,
  type KlineRow,
  type Market,
  nextBucketOpen,
} from '@perp/domain';
import { type CandleSeriesName, MarketDataRepository } from '@perp/persistence';
import { LocalAnswers } from '../../markets/local-answers';
import { candleOf, priceKlineRow, tradeKlineRow } from './kline-views';

/** A kline request's window, as sent (times in ms). */
export interface KlineQuery {
  startTime?: number;
  endTime?: number;
  limit: number;
}

/**
 * How long an answer is reused for the same request. A new trade of the symbol ends it at once for
 * last-price klines (the last trade id with stored candles is part of the key); the price series,
 * sampled a few times a second at most, may lag by this much.
 */
export const KLINE_CACHE_MS = 1000;
const KLINE_CACHE_ENTRIES = 2000;

interface Cached {
  expires: number;
  rows: Promise<KlineRow[]>;
  /** The rows as JSON, serialised on the first request that wants them. */
  json?: Promise<Buffer>;
}

/**
 * Klines as Binance serves them: the stored buckets of the window (Binance's paging) with every
 * bucket in between filled flat at the previous close, up to now at most; rendered rows of a
 * request are reused for KLINE_CACHE_MS (concurrent identical requests share one read).
 */
@Injectable()
export class KlineReader {
  private readonly cache = new Map<string, Cached>();
  private readonly local: LocalAnswers<object>;

  constructor(
    private readonly md: MarketDataRepository,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {
    this.local = new LocalAnswers(hot);
  }

  async rows(
    m: Market,
    series: CandleSeriesName,
    interval: KlineInterval,
    q: KlineQuery,
    now: number,
  ): Promise<KlineRow[]> {
    return (await this.answer(m, series, interval, q, now)).rows;
  }

  /**
   * `rows` as a UTF-8 JSON body, serialised and encoded once per cached answer. With `owner` (the
   * request's parsed query, one object per distinct query) a last-price body is also kept for
   * `jsonNow` while the candles' version is unchanged, within its bucket and KLINE_CACHE_MS.
   */
  async json(
    m: Market,
    series: CandleSeriesName,
    interval: KlineInterval,
    q: KlineQuery,
    now: number,
    owner?: object,
  ): Promise<Buffer> {
    const keys = [CANDLES_VERSION_KEY(m.symbol)];
    const versions = owner !== undefined && series === 'last' ? this.local.versions(keys) : undefined;
    const a = await this.answer(m, series, interval, q, now);
    const body = await (a.json ??= a.rows.then((rows) => Buffer.from(JSON.stringify(rows))));
    if (versions)
      this.local.keep(owner!, keys, versions, body, Math.min(a.expires, nextBucketOpen(interval, now)));
    return body;
  }

  /** The body `json` kept for `owner`, if still the answer at `now` (an in-process store only). */
  jsonNow(owner: object, now: number): Buffer | undefined {
    return this.local.get(owner, now);
  }

  private async answer(
    m: Market,
    series: CandleSeriesName,
    interval: KlineInterval,
    q: KlineQuery,
    now: number,
  ): Promise<Cached> {
    // The last trade whose candles are stored: written after them, so never ahead of what is read.
    const version = series === 'last' ? ((await this.hot.get(CANDLES_VERSION_KEY(m.symbol))) ?? '') : '';
    // The answer changes with the bucket now falls in (trailing flat candles), not within it.
    const key = [
      m.symbol,
      series,
      interval,
      q.startTime,
      q.endTime,
      q.limit,
      bucketOpen(interval, now),
      version,
    ].join('|');
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit;
    const render = series === 'last' ? (c: Candle) => tradeKlineRow(m, c) : priceKlineRow;
    const rows = this.candles(m.symbol, series, interval, q, now).then((cs) => cs.map(render));
    const entry: Cached = { expires: now + KLINE_CACHE_MS, rows };
    this.remember(key, entry);
    rows.catch(() => this.cache.delete(key));
    return entry;
  }

  async candles(
    symbol: string,
    series: CandleSeriesName,
    interval: KlineInterval,
    q: KlineQuery,
    now: number,
  ): Promise<Candle[]> {
    const endTime = Math.min(q.endTime ?? now, now);
    const { startTime, limit } = q;
    if (startTime !== undefined && startTime > endTime) return [];
    const rows = await this.md.candles(symbol, series, interval, { startTime, endTime, limit });
    const stored = rows.map(candleOf);
    let before: Candle | undefined;
    if (startTime !== undefined) {
      const first = firstBucketAtOrAfter(interval, startTime);
      // Only a window that does not open on a stored candle needs the close before it.
      if (stored[0]?.openTime !== first) {
        const row = await this.md.candleBefore(symbol, series, interval, first);
        before = row ? candleOf(row) : undefined;
      }
    }
    return fillCandleGaps(stored, interval, { startTime, endTime, limit, before });
  }

  /** Answers held (tests). */
  get cached(): number {
    return this.cache.size;
  }

  private remember(key: string, entry: Cached): void {
    this.cache.delete(key);
    this.cache.set(key, entry);
    // Oldest first in a Map: drop from the front once full, and what expired (an answer may hold
    // 1,500 rows; queries are client-chosen, so expired ones would otherwise stay until 2,000 came).
    const now = entry.expires - KLINE_CACHE_MS;
    for (const [k, e] of this.cache) {
      if (this.cache.size <= KLINE_CACHE_ENTRIES && e.expires > now) break;
      this.cache.delete(k);
    }
  }
}
