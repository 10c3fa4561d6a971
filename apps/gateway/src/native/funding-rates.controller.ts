import { Controller, Get, Param } from '@nestjs/common';
import { MarketRegistry } from '@perp/domain';
import { z } from 'zod';
import { MarketStatsReader } from '../fapi/market-stats/market-stats.reader';
import { PriceAvailability } from '../fapi/market-stats/price-availability';
import { nativeMarket } from '../markets/market-lookup';
import { ApiDoc } from '../openapi/api-doc';
import { NativeFundingRate } from '../openapi/native-responses';
import { nativeFundingRate } from './funding-rate-view';

/** Native funding of a market (public). */
@Controller('api/v1/funding-rates')
export class NativeFundingRatesController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly reader: MarketStatsReader,
    private readonly availability: PriceAvailability,
  ) {}

  @Get(':symbol')
  @ApiDoc({
    tag: 'markets',
    summary: 'Current and predicted funding rate, next funding time, open interest per side and caps',
    path: { symbol: z.string().meta({ description: 'Market, any alias' }) },
    response: NativeFundingRate,
    errors: ['INVALID_MARKET', 'PRICE_DATA_UNAVAILABLE', 'CIRCUIT_OPEN'],
  })
  async get(@Param('symbol') symbol: string) {
    const market = nativeMarket(this.markets, symbol);
    await this.availability.requireNative(market.symbol);
    const [price, last, oi] = await Promise.all([
      this.reader.price(market.symbol),
      this.reader.latestFundingRate(market.symbol),
      this.reader.openInterest(market.symbol),
    ]);
    return nativeFundingRate(market, price, last, oi, Date.now());
  }
}
