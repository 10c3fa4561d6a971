import { Controller, Get } from '@nestjs/common';
import { type RawParams, scalar } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { Caller, type FapiCaller, FapiParams, Signed } from '../../access';
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
  async accountConfig(@Caller() caller: FapiCaller) {
    const { account } = await this.reader.load(caller.address);
    return accountConfigView(account);
  }

  /** Always an array: `symbol`'s row, or every market's. */
  @Get('symbolConfig')
  @Signed({ type: 'USER_DATA', weight: 5 })
  async symbolConfig(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    const symbol = scalar(params, 'symbol');
    const markets = symbol === undefined ? this.markets.list() : [fapiMarket(this.markets, symbol)];
    const { account } = await this.reader.load(caller.address);
    return markets.map((m) => symbolConfigView(account, m));
  }
}
