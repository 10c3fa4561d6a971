import { Controller, Get, Inject, Param } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { MarketRegistry } from '@perp/domain';
import { readOpenInterest } from '@perp/contracts';
import { AccountReader } from '../../fapi/account/account-reader';
import { nativeMarket } from '../../markets/market-lookup';
import { z } from 'zod';
import { ApiDoc } from '../../openapi/api-doc';
import { NativeOpenInterest } from '../../openapi/native-responses';
import { type NativeOpenInterestView, nativeOpenInterest } from './open-interest-view';

/**
 * GET /api/v1/open-interest/{symbol} (public): long and short open interest in base units and at
 * the mark price in USD, with the market's per-side caps. The figures are the market-data
 * projection of the engine's trades (`oi:{symbol}`), so they trail the engine by the projector's lag.
 */
@Controller('api/v1/open-interest')
export class OpenInterestController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly reader: AccountReader,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  @Get(':symbol')
  @ApiDoc({
    tag: 'markets',
    summary: 'Long and short open interest with the caps',
    description:
      'Projected from the engine’s trades by the market-data service, so it trails the engine slightly.',
    path: { symbol: z.string().meta({ description: 'Market, any alias' }) },
    response: NativeOpenInterest,
    errors: ['INVALID_MARKET'],
  })
  async get(@Param('symbol') symbol: string): Promise<NativeOpenInterestView> {
    const market = nativeMarket(this.markets, symbol);
    const [oi, marks] = await Promise.all([
      readOpenInterest(this.hot, market.symbol),
      this.reader.markPrices([market.symbol]),
    ]);
    return nativeOpenInterest(market, oi, marks.get(market.symbol));
  }
}
