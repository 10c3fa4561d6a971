import { Controller, Get, Header } from '@nestjs/common';
import type { RawParams } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { FapiParams } from '../../access';
import { DepthCache } from './depth-cache';
import { depthJson } from './depth-view';
import { depthLimit, marketParam } from './market-params';

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
  async depthOf(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'symbol');
    const limit = depthLimit(params);
    return depthJson(await this.depth.book(m), limit, Date.now());
  }
}
