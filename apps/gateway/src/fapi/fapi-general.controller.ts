import { Controller, Get, Inject } from '@nestjs/common';
import { toExchangeInfo } from '@perp/contracts';
import { type Chain, MarketRegistry } from '@perp/domain';
import { APP_CONFIG, type AppConfig, CHAIN } from '@perp/runtime';
import { ceilingsOf, exchangeInfoRateLimits } from '../rate-limits/rate-limit-rules';
import { Weight } from '../rate-limits/weight.decorator';
import { z } from 'zod';
import { ApiDoc } from '../openapi/api-doc';
import { Empty } from '../openapi/fapi-responses';
import { AnyRecord } from '../openapi/fapi-responses';

/** Public FAPI endpoints a client calls on start (Type NONE: no key, timestamp or signature). */
@Controller('fapi/v1')
export class FapiGeneralController {
  /** The ceilings the rate limiter enforces, published as Binance clients read them. */
  private readonly rateLimits: ReturnType<typeof exchangeInfoRateLimits>;

  constructor(
    @Inject(CHAIN) private readonly chain: Chain,
    private readonly markets: MarketRegistry,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.rateLimits = exchangeInfoRateLimits(ceilingsOf(config));
  }

  @Get('ping')
  @Weight(1)
  @ApiDoc({ tag: 'general', summary: 'Connectivity check', response: Empty })
  ping() {
    return {};
  }

  @Get('time')
  @Weight(1)
  @ApiDoc({
    tag: 'general',
    summary: 'Server time (ms)',
    response: z.object({ serverTime: z.number().int() }),
  })
  time() {
    return { serverTime: Date.now() };
  }

  @Get('exchangeInfo')
  @Weight(1)
  @ApiDoc({
    tag: 'general',
    summary: 'Markets, filters and the rate limits in force',
    description: '`rateLimits` are the deployment’s configured ceilings (RATE_LIMIT_*).',
    response: AnyRecord,
  })
  exchangeInfo() {
    return toExchangeInfo(this.chain, this.markets.list(), Date.now(), this.rateLimits);
  }
}
