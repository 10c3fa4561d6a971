import { Controller, Get, Header } from '@nestjs/common';
import type { FapiFields } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { fapiMarket } from '../../markets/market-lookup';
import { ApiDoc } from '../../openapi/api-doc';
import { Depth } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { DepthCache } from './depth-cache';
import { depthJson } from './depth-view';
import { DEPTH_PARAMS } from './market-params';

/** GET /fapi/v1/depth: the projected L2 book (weight by limit, see PUBLIC_WEIGHTS). */
@Controller('fapi/v1')
export class FapiDepthController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly depth: DepthCache,
  ) {}

  /** `{lastUpdateId, E, T, bids, asks}`, its levels serialized once per book and limit. */
  @Get('depth')
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiDoc({
    tag: 'market',
    summary: 'Order book',
    description: '`lastUpdateId` is the engine’s book sequence (0 before any change).',
    response: Depth,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'ILLEGAL_CHARS', 'INVALID_SYMBOL'],
  })
  async depthOf(@FapiInput(DEPTH_PARAMS) q: FapiFields<typeof DEPTH_PARAMS>) {
    const m = fapiMarket(this.markets, q.get('symbol'));
    const limit = q.get('limit');
    return depthJson(await this.depth.book(m), limit, Date.now());
  }

  /** `depthOf`'s answer with no read when the book is unchanged (DepthCache.bookNow); else undefined. */
  depthNow(q: FapiFields<typeof DEPTH_PARAMS>): Buffer | undefined {
    if (!this.depth.local) return undefined;
    const book = this.depth.bookNow(fapiMarket(this.markets, q.get('symbol')));
    return book && depthJson(book, q.get('limit'), Date.now());
  }
}
