import { Controller, Get } from '@nestjs/common';
import { type FapiFields, fapiParam as P } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { fapiMarket } from '../../markets/market-lookup';
import { ApiDoc } from '../../openapi/api-doc';
import { OpenInterest } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { fapiOpenInterest } from '../../native/trading/open-interest-view';
import { MarketStatsReader } from './market-stats.reader';

const SYMBOL = { symbol: P.symbol() };

/** GET /fapi/v1/openInterest: the spec's long + short total, as the native view's two sides. */
@Controller('fapi/v1')
export class FapiOpenInterestController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly reader: MarketStatsReader,
  ) {}

  @Get('openInterest')
  @ApiDoc({
    tag: 'market',
    summary: 'Open interest (long + short)',
    response: OpenInterest,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'INVALID_SYMBOL'],
  })
  async openInterest(@FapiInput(SYMBOL) q: FapiFields<typeof SYMBOL>) {
    const market = fapiMarket(this.markets, q.get('symbol'));
    return fapiOpenInterest(market, await this.reader.openInterest(market.symbol), Date.now());
  }
}
