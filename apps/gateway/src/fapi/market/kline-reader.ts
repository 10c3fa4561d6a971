import { Injectable } from '@nestjs/common';
import { type Candle, fillCandleGaps, firstBucketAtOrAfter, type KlineInterval } from '@perp/domain';
import { type CandleSeriesName, MarketDataRepository } from '@perp/persistence';
import { candleOf } from './kline-views';

/** A kline request's window, as sent (times in ms). */
export interface KlineQuery {
  startTime?: number;
  endTime?: number;
  limit: number;
}

/**
 * Candles of a series as Binance serves them: the stored buckets of the window (Binance's paging)
 * with every bucket in between filled flat at the previous close, up to now at most.
 */
@Injectable()
export class KlineReader {
  constructor(private readonly md: MarketDataRepository) {}

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
}
