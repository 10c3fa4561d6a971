import { Controller, Get, Header, Inject } from '@nestjs/common';
import { toExchangeInfo } from '@perp/contracts';
import { type Chain, type Market, MarketRegistry } from '@perp/domain';
import { APP_CONFIG, type AppConfig, CHAIN } from '@perp/runtime';
import { ceilingsOf, exchangeInfoRateLimits } from '../rate-limits/rate-limit-rules';
import { Weight } from '../rate-limits/weight.decorator';
import { z } from 'zod';
import { ApiDoc } from '../openapi/api-doc';
import { Empty } from '../openapi/fapi-responses';
import { AnyRecord } from '../openapi/fapi-responses';

const SERVER_TIME_MARK = -1;
const SERVER_TIME_FIELD = `"serverTime":${SERVER_TIME_MARK}`;

/** Public FAPI endpoints a client calls on start (Type NONE: no key, timestamp or signature). */
@Controller('fapi/v1')
export class FapiGeneralController {
  /** The ceilings the rate limiter enforces, published as Binance clients read them. */
  private readonly rateLimits: ReturnType<typeof exchangeInfoRateLimits>;
  /** exchangeInfo's UTF-8 JSON around its serverTime, for the market objects it was rendered from. */
  private rendered?: { markets: readonly Market[]; head: Buffer; tail: Buffer };
  private last?: { rendered: NonNullable<FapiGeneralController['rendered']>; now: number; body: Buffer };

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
  @Header('content-type', 'application/json; charset=utf-8')
  exchangeInfo(): Buffer {
    // Markets are replaced, never changed in place: the same objects render the same JSON, so
    // only serverTime is written per request.
    const markets = this.markets.list();
    let r = this.rendered;
    if (!r || r.markets.length !== markets.length || r.markets.some((m, i) => m !== markets[i])) {
      const json = JSON.stringify(toExchangeInfo(this.chain, markets, SERVER_TIME_MARK, this.rateLimits));
      const at = json.indexOf(SERVER_TIME_FIELD);
      r = this.rendered = {
        markets,
        head: Buffer.from(json.slice(0, at + SERVER_TIME_FIELD.length - String(SERVER_TIME_MARK).length)),
        tail: Buffer.from(json.slice(at + SERVER_TIME_FIELD.length)),
      };
    }
    // Requests of one millisecond share one answer (4 KB and more, copied once).
    const now = Date.now();
    const last = this.last;
    if (last !== undefined && last.rendered === r && last.now === now) return last.body;
    const body = Buffer.concat([r.head, Buffer.from(String(now), 'latin1'), r.tail]);
    this.last = { rendered: r, now, body };
    return body;
  }
}
