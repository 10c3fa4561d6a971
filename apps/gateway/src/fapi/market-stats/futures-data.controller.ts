import { Controller, Get } from '@nestjs/common';
import type { FapiFields } from '@perp/contracts';
import { fillForward, MarketRegistry, periodBuckets } from '@perp/domain';
import type { MarketStatisticEntity } from '@perp/persistence';
import { z } from 'zod';
import { ApiDoc, type ApiDocSpec } from '../../openapi/api-doc';
import { FapiInput } from '../../openapi/route-inputs';
import {
  accountRatioRows,
  openInterestHistRows,
  positionRatioRows,
  takerVolumeRows,
} from './futures-data-view';
import { MarketStatsReader } from './market-stats.reader';
import { STATS_PARAMS, type StatsQuery, statsQuery } from './stats-params';

type Q = FapiFields<typeof STATS_PARAMS>;
const row = (fields: Record<string, z.ZodType>) =>
  z.array(z.object({ symbol: z.string(), ...fields, timestamp: z.number().int() }));
const dec = z.string();
const doc = (summary: string, response: z.ZodType): ApiDocSpec => ({
  tag: 'market',
  summary,
  description:
    'One row per period bucket of the window, oldest first; buckets without trades carry the last figures.',
  response,
  errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'ILLEGAL_CHARS', 'INVALID_SYMBOL', 'INVALID_INTERVAL'],
});
const ratio = row({ longShortRatio: dec, longAccount: dec, shortAccount: dec });

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
  @ApiDoc(doc('Open interest history', row({ sumOpenInterest: dec, sumOpenInterestValue: dec })))
  async openInterestHist(@FapiInput(STATS_PARAMS) q: Q) {
    const s = statsQuery(this.markets, q);
    return openInterestHistRows(s.market.symbol, await this.statistics(s));
  }

  @Get('globalLongShortAccountRatio')
  @ApiDoc(doc('Long/short account ratio of all accounts', ratio))
  async globalLongShortAccountRatio(@FapiInput(STATS_PARAMS) q: Q) {
    const s = statsQuery(this.markets, q);
    return accountRatioRows(s.market.symbol, await this.statistics(s), 'all');
  }

  @Get('topLongShortAccountRatio')
  @ApiDoc(doc('Long/short account ratio of the top traders', ratio))
  async topLongShortAccountRatio(@FapiInput(STATS_PARAMS) q: Q) {
    const s = statsQuery(this.markets, q);
    return accountRatioRows(s.market.symbol, await this.statistics(s), 'top');
  }

  @Get('topLongShortPositionRatio')
  @ApiDoc(doc('Long/short position ratio of the top traders', ratio))
  async topLongShortPositionRatio(@FapiInput(STATS_PARAMS) q: Q) {
    const s = statsQuery(this.markets, q);
    return positionRatioRows(s.market.symbol, await this.statistics(s));
  }

  @Get('takerlongshortRatio')
  @ApiDoc(
    doc(
      'Taker buy/sell volume',
      z.array(z.object({ buySellRatio: dec, buyVol: dec, sellVol: dec, timestamp: z.number().int() })),
    ),
  )
  async takerlongshortRatio(@FapiInput(STATS_PARAMS) q: Q) {
    const s = statsQuery(this.markets, q);
    const buckets = periodBuckets(s.period, s.window, Date.now());
    const candles = await this.reader.candles(s.market.symbol, s.period, buckets);
    return takerVolumeRows(
      s.period,
      fillForward(buckets, candles, (c) => c.openTime),
    );
  }

  private async statistics(s: StatsQuery) {
    const buckets = periodBuckets(s.period, s.window, Date.now());
    const rows = await this.reader.statistics(s.market.symbol, s.period, buckets);
    return fillForward(buckets, rows, (r: MarketStatisticEntity) => r.time);
  }
}
