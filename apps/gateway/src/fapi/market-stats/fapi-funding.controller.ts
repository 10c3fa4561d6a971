import { Controller, Get } from '@nestjs/common';
import { type FapiFields, fapiParam as P } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { z } from 'zod';
import { fapiMarket } from '../../markets/market-lookup';
import { ApiDoc } from '../../openapi/api-doc';
import { FundingRate, oneOrAll, PremiumIndex } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { OPTIONAL_SYMBOL } from '../market/market-params';
import { fundingInfoRow, fundingRateRow, markPriceRow } from './funding-view';
import { MarketStatsReader } from './market-stats.reader';
import { PriceAvailability } from './price-availability';

export const FUNDING_RATE_LIMIT = { default: 100, max: 1000 } as const;

const FUNDING_RATE_PARAMS = {
  ...OPTIONAL_SYMBOL,
  startTime: P.time('From this funding time').optional(),
  endTime: P.time('Up to this funding time').optional(),
  limit: P.limit(FUNDING_RATE_LIMIT.default, FUNDING_RATE_LIMIT.max),
};

/** Mark price and funding (Type NONE; weights in PUBLIC_WEIGHTS). */
@Controller('fapi/v1')
export class FapiFundingController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly reader: MarketStatsReader,
    private readonly availability: PriceAvailability,
  ) {}

  /** With `symbol` one object, without it every market as an array (as Binance). */
  @Get('premiumIndex')
  @ApiDoc({
    tag: 'market',
    summary: 'Mark price, index price and funding',
    response: oneOrAll(PremiumIndex),
    errors: ['INVALID_SYMBOL', 'DISCONNECTED'],
  })
  async premiumIndex(@FapiInput(OPTIONAL_SYMBOL) q: FapiFields<typeof OPTIONAL_SYMBOL>) {
    const symbol = q.get('symbol');
    const now = Date.now();
    if (symbol !== undefined) {
      const m = fapiMarket(this.markets, symbol);
      await this.availability.requireFapi(m.symbol);
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
  @ApiDoc({
    tag: 'market',
    summary: 'Settled funding rates',
    description: 'Oldest first: from startTime the first `limit`, else the latest `limit` up to endTime.',
    response: z.array(FundingRate),
    errors: ['ILLEGAL_CHARS', 'MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'INVALID_SYMBOL'],
  })
  async fundingRate(@FapiInput(FUNDING_RATE_PARAMS) q: FapiFields<typeof FUNDING_RATE_PARAMS>) {
    const symbol = q.get('symbol');
    const market = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const rows = await this.reader.fundingRates(market?.symbol, {
      startTime: q.get('startTime'),
      endTime: q.get('endTime'),
      limit: q.get('limit'),
    });
    return rows.map(fundingRateRow);
  }

  @Get('fundingInfo')
  @ApiDoc({
    tag: 'market',
    summary: 'Funding rate caps and intervals of every market',
    response: z.array(
      z.object({
        symbol: z.string(),
        adjustedFundingRateCap: z.string(),
        adjustedFundingRateFloor: z.string(),
        fundingIntervalHours: z.number().int(),
        disclaimer: z.boolean(),
      }),
    ),
  })
  fundingInfo() {
    return this.markets.list().map(fundingInfoRow);
  }
}
