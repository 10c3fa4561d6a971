import { Controller, Get } from '@nestjs/common';
import { type RawParams, required } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { FapiParams } from '../../access';
import { fapiMarket } from '../../markets/market-lookup';
import { fapiOpenInterest } from '../../native/trading/open-interest-view';
import { MarketStatsReader } from './market-stats.reader';

/** GET /fapi/v1/openInterest: the spec's long + short total, as the native view's two sides. */
@Controller('fapi/v1')
export class FapiOpenInterestController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly reader: MarketStatsReader,
  ) {}

  @Get('openInterest')
  async openInterest(@FapiParams() params: RawParams) {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    return fapiOpenInterest(market, await this.reader.openInterest(market.symbol), Date.now());
  }
}
