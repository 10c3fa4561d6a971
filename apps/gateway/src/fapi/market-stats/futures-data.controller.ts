import { Controller, Get } from '@nestjs/common';
import type { RawParams } from '@perp/contracts';
import { fillForward, MarketRegistry, periodBuckets } from '@perp/domain';
import type { MarketStatisticEntity } from '@perp/persistence';
import { FapiParams } from '../../access';
import {
  accountRatioRows,
  openInterestHistRows,
  positionRatioRows,
  takerVolumeRows,
} from './futures-data-view';
import { MarketStatsReader } from './market-stats.reader';
import { type StatsQuery, statsQuery } from './stats-params';

/**
 * Binance's futures-data series (Type NONE, weight 1 each: PUBLIC_WEIGHTS), one row per period
 * bucket of the window. Buckets without trades have no stored row: they carry the last stored
 * figures (taker volume: zero), from the first stored point up to now's bucket (README).
 */
@Controller('futures/data')
export class FuturesDataController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly reader: MarketStatsReader,
  ) {}

  @Get('openInterestHist')
  async openInterestHist(@FapiParams() params: RawParams) {
    const q = statsQuery(this.markets, params);
    return openInterestHistRows(q.market.symbol, await this.statistics(q));
  }

  @Get('globalLongShortAccountRatio')
  async globalLongShortAccountRatio(@FapiParams() params: RawParams) {
    const q = statsQuery(this.markets, params);
    return accountRatioRows(q.market.symbol, await this.statistics(q), 'all');
  }

  @Get('topLongShortAccountRatio')
  async topLongShortAccountRatio(@FapiParams() params: RawParams) {
    const q = statsQuery(this.markets, params);
    return accountRatioRows(q.market.symbol, await this.statistics(q), 'top');
  }

  @Get('topLongShortPositionRatio')
  async topLongShortPositionRatio(@FapiParams() params: RawParams) {
    const q = statsQuery(this.markets, params);
    return positionRatioRows(q.market.symbol, await this.statistics(q));
  }

  @Get('takerlongshortRatio')
  async takerlongshortRatio(@FapiParams() params: RawParams) {
    const q = statsQuery(this.markets, params);
    const buckets = periodBuckets(q.period, q.window, Date.now());
    const candles = await this.reader.candles(q.market.symbol, q.period, buckets);
    return takerVolumeRows(
      q.period,
      fillForward(buckets, candles, (c) => c.openTime),
    );
  }

  private async statistics(q: StatsQuery) {
    const buckets = periodBuckets(q.period, q.window, Date.now());
    const rows = await this.reader.statistics(q.market.symbol, q.period, buckets);
    return fillForward(buckets, rows, (s: MarketStatisticEntity) => s.time);
  }
}
