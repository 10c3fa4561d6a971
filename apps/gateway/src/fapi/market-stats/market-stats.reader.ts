import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, type OpenInterest, readOpenInterest } from '@perp/contracts';
import { type Money, parseDecimal, type StatsPeriod } from '@perp/domain';
import {
  type FundingRateEntity,
  type MarketCandleEntity,
  MarketDataRepository,
  type MarketStatisticEntity,
  type SeriesWindow,
} from '@perp/persistence';

/** The latest mark and index price of a symbol as the risk router last wrote them. */
export interface PriceReading {
  mark?: Money;
  index?: Money;
  /** The current interval's estimated funding rate the mark was derived with. */
  fundingRate?: Money;
  /** Time of the price; 0 when none was ever written. */
  time: number;
}

/**
 * The rows of a series for `buckets` (ascending bucket opens): the stored points inside them plus
 * the last stored point before the first, which the first buckets carry when they have none.
 */
async function withOpeningPoint<T>(
  buckets: readonly number[],
  read: (page: SeriesWindow) => Promise<T[]>,
): Promise<T[]> {
  if (buckets.length === 0) return [];
  const first = buckets[0]!;
  const [before, inside] = await Promise.all([
    first > 0 ? read({ endTime: first - 1, limit: 1 }) : Promise.resolve([]),
    read({ startTime: first, endTime: buckets[buckets.length - 1]!, limit: buckets.length }),
  ]);
  return [...before, ...inside];
}

/** The reads of the market-statistics endpoints: Postgres projections and the hot store. */
@Injectable()
export class MarketStatsReader {
  constructor(
    private readonly md: MarketDataRepository,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  /** Stored futures-data figures of `buckets`' period, with the point the window opens with. */
  statistics(
    symbol: string,
    period: StatsPeriod,
    buckets: readonly number[],
  ): Promise<MarketStatisticEntity[]> {
    return withOpeningPoint(buckets, (page) => this.md.statistics(symbol, period, page));
  }

  /** Last-price candles of the period's own interval (taker volumes), with the opening one. */
  candles(symbol: string, period: StatsPeriod, buckets: readonly number[]): Promise<MarketCandleEntity[]> {
    return withOpeningPoint(buckets, (page) => this.md.candles(symbol, 'last', period, page));
  }

  fundingRates(symbol: string | undefined, page: SeriesWindow): Promise<FundingRateEntity[]> {
    return this.md.fundingRates(symbol, page);
  }

  async latestFundingRate(symbol: string): Promise<FundingRateEntity | undefined> {
    const [latest] = await this.md.fundingRates(symbol, { limit: 1 });
    return latest;
  }

  /** Each symbol's latest settled funding rate, by symbol (absent: never settled). */
  async latestFundingRates(): Promise<Map<string, FundingRateEntity>> {
    return new Map((await this.md.latestFundingRates()).map((f) => [f.symbol, f]));
  }

  async price(symbol: string): Promise<PriceReading> {
    const row = await this.hot.hgetall(HOT_KEYS.price(symbol));
    return {
      mark: parseDecimal(row.markPrice),
      index: parseDecimal(row.indexPrice),
      fundingRate: parseDecimal(row.fundingRate),
      time: Number(row.time ?? 0) || 0,
    };
  }

  openInterest(symbol: string): Promise<OpenInterest> {
    return readOpenInterest(this.hot, symbol);
  }
}
