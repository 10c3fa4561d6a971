import { Controller, Get, Inject } from '@nestjs/common';
import { toExchangeInfo } from '@perp/contracts';
import { type Chain, MarketRegistry } from '@perp/domain';
import { CHAIN } from '@perp/runtime';
import { Weight } from '../rate-limits/weight.decorator';

/** Public FAPI endpoints a client calls on start (Type NONE: no key, timestamp or signature). */
@Controller('fapi/v1')
export class FapiGeneralController {
  constructor(
    @Inject(CHAIN) private readonly chain: Chain,
    private readonly markets: MarketRegistry,
  ) {}

  @Get('ping')
  @Weight(1)
  ping() {
    return {};
  }

  @Get('time')
  @Weight(1)
  time() {
    return { serverTime: Date.now() };
  }

  @Get('exchangeInfo')
  @Weight(1)
  exchangeInfo() {
    return toExchangeInfo(this.chain, this.markets.list(), Date.now());
  }
}
