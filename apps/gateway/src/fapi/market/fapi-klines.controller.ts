import { Controller, Get } from '@nestjs/common';
import type { RawParams } from '@perp/contracts';
import { type Market, MarketRegistry } from '@perp/domain';
import type { CandleSeriesName } from '@perp/persistence';
import { FapiParams } from '../../access';
import { KlineReader } from './kline-reader';
import { intervalParam, limitParam, marketParam, perpetualOnly, timeParam } from './market-params';

/**
 * Klines of the last price and of the mark, index and premium-index prices, every interval a true
 * bucket. Weight by `limit` (PUBLIC_WEIGHTS); limit default 500, above 1500 clamped.
 */
@Controller('fapi/v1')
export class FapiKlinesController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly klines: KlineReader,
  ) {}

  @Get('klines')
  lastPrice(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'symbol');
    return this.read(m, 'last', params);
  }

  /** By pair; every market is a perpetual, so `contractType` must be PERPETUAL (-1130 otherwise). */
  @Get('continuousKlines')
  continuous(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'pair');
    perpetualOnly(params);
    return this.read(m, 'last', params);
  }

  @Get('indexPriceKlines')
  indexPrice(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'pair');
    return this.read(m, 'index', params);
  }

  @Get('markPriceKlines')
  markPrice(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'symbol');
    return this.read(m, 'mark', params);
  }

  @Get('premiumIndexKlines')
  premiumIndex(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'symbol');
    return this.read(m, 'premium', params);
  }

  private read(m: Market, series: CandleSeriesName, params: RawParams) {
    const interval = intervalParam(params);
    const query = {
      startTime: timeParam(params, 'startTime'),
      endTime: timeParam(params, 'endTime'),
      limit: limitParam(params, 500, 1500),
    };
    return this.klines.rows(m, series, interval, query, Date.now());
  }
}
