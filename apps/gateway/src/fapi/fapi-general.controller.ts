import { Controller, Get, Inject } from '@nestjs/common';
import { toExchangeInfo } from '@perp/contracts';
import { type Chain, MarketRegistry } from '@perp/domain';
import { CHAIN } from '@perp/runtime';

/** Public FAPI endpoints a client calls on start (Type NONE: no key, timestamp or signature). */
@Controller('fapi/v1')
export class FapiGeneralController {
  constructor(
    @Inject(CHAIN) private readonly chain: Chain,
    private readonly markets: MarketRegistry,
  ) {}

  @Get('ping')
  ping() {
    return {};
  }

  @Get('time')
  time() {
    return { serverTime: Date.now() };
  }

  @Get('exchangeInfo')
  exchangeInfo() {
    return toExchangeInfo(this.chain, this.markets.list(), Date.now());
  }
}
