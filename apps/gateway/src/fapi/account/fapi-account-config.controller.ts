import { Controller, Get } from '@nestjs/common';
import type { FapiFields } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { z } from 'zod';
import { Caller, type FapiCaller, Signed } from '../../access';
import { ApiDoc } from '../../openapi/api-doc';
import { AnyRecord } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { OPTIONAL_SYMBOL } from '../market/market-params';
import { fapiMarket } from '../../markets/market-lookup';
import { accountConfigView, symbolConfigView } from './account-config-view';
import { AccountReader } from './account-reader';

/** The account-configuration reads ccxt calls (Binance's types and weights). */
@Controller('fapi/v1')
export class FapiAccountConfigController {
  constructor(
    private readonly reader: AccountReader,
    private readonly markets: MarketRegistry,
  ) {}

  @Get('accountConfig')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc({ tag: 'account', summary: 'Account configuration (fee tier, trading flags)', response: AnyRecord })
  async accountConfig(@Caller() caller: FapiCaller) {
    const { account } = await this.reader.load(caller.address);
    return accountConfigView(account);
  }

  /** Always an array: `symbol`'s row, or every market's. */
  @Get('symbolConfig')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc({
    tag: 'account',
    summary: 'Per-symbol configuration (leverage, margin type)',
    response: z.array(AnyRecord),
    errors: ['INVALID_SYMBOL'],
  })
  async symbolConfig(
    @Caller() caller: FapiCaller,
    @FapiInput(OPTIONAL_SYMBOL) q: FapiFields<typeof OPTIONAL_SYMBOL>,
  ) {
    const symbol = q.get('symbol');
    const markets = symbol === undefined ? this.markets.list() : [fapiMarket(this.markets, symbol)];
    const { account } = await this.reader.load(caller.address);
    return markets.map((m) => symbolConfigView(account, m));
  }
}
