import { Controller, Get } from '@nestjs/common';
import { type RawParams, scalar } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { FapiParams } from '../../access';
import { fapiMarket } from '../../markets/market-lookup';
import { limitParam, timeParam } from '../account/history-params';
import { fundingInfoRow, fundingRateRow, markPriceRow } from './funding-view';
import { MarketStatsReader } from './market-stats.reader';

export const FUNDING_RATE_LIMIT = { default: 100, max: 1000 } as const;

/** Mark price and funding (Type NONE; weights in PUBLIC_WEIGHTS). */
@Controller('fapi/v1')
export class FapiFundingController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly reader: MarketStatsReader,
  ) {}

  /** With `symbol` one object, without it every market as an array (as Binance). */
  @Get('premiumIndex')
  async premiumIndex(@FapiParams() params: RawParams) {
    const symbol = scalar(params, 'symbol');
    const now = Date.now();
    if (symbol !== undefined) {
      const m = fapiMarket(this.markets, symbol);
      const [price, funding] = await Promise.all([
        this.reader.price(m.symbol),
        this.reader.latestFundingRate(m.symbol),
      ]);
      return markPriceRow(m, price, funding, now);
    }
    const markets = this.markets.list();
    const [prices, funding] = await Promise.all([
      Promise.all(markets.map((m) => this.reader.price(m.symbol))),
      this.reader.latestFundingRates(),
    ]);
    return markets.map((m, i) => markPriceRow(m, prices[i]!, funding.get(m.symbol), now));
  }

  /**
   * Settled funding rates, oldest first: from startTime the first `limit`, otherwise the latest
   * `limit` up to endTime. Without `symbol`, the rows of every symbol (as Binance).
   */
  @Get('fundingRate')
  async fundingRate(@FapiParams() params: RawParams) {
    const symbol = scalar(params, 'symbol');
    const market = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const rows = await this.reader.fundingRates(market?.symbol, {
      startTime: timeParam(params, 'startTime'),
      endTime: timeParam(params, 'endTime'),
      limit: limitParam(params, FUNDING_RATE_LIMIT.default, FUNDING_RATE_LIMIT.max),
    });
    return rows.map(fundingRateRow);
  }

  @Get('fundingInfo')
  fundingInfo() {
    return this.markets.list().map(fundingInfoRow);
  }
}
