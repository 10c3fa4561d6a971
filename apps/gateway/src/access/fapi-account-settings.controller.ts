import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { FapiError, type FapiFields, fapiParam as P } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { z } from 'zod';
import { fapiMarket } from '../markets/market-lookup';
import { ApiDoc } from '../openapi/api-doc';
import { Success } from '../openapi/fapi-responses';
import { FapiInput } from '../openapi/route-inputs';
import { Signed } from './signed/signed';

const SUCCESS = { code: 200, msg: 'success' } as const;

const POSITION_MODE = {
  dualSidePosition: P.keepEmpty(P.bool('Hedge mode: only false (one-way) is accepted')),
};
const MARGIN_TYPE = {
  symbol: P.symbol(),
  marginType: P.oneOf(['CROSSED', 'ISOLATED'], 'INVALID_DATA_FOR_PARAMETER', 'Only CROSSED on FAPI'),
};

/**
 * Spec "FAPI: account settings" that need no account state: one-way position mode and cross margin
 * are the only modes on FAPI, so these answer from the rules alone. They are the first signed
 * endpoints; leverage joins them with the account service.
 */
@Controller('fapi/v1')
export class FapiAccountSettingsController {
  constructor(private readonly markets: MarketRegistry) {}

  @Get('positionSide/dual')
  @Signed({ type: 'TRADE', weight: 30 })
  @ApiDoc({
    tag: 'settings',
    summary: 'Position mode (always one-way)',
    response: z.object({ dualSidePosition: z.literal(false) }),
  })
  positionMode(): { dualSidePosition: false } {
    return { dualSidePosition: false };
  }

  @Post('positionSide/dual')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'settings',
    summary: 'Set the position mode (one-way only)',
    response: Success,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'NO_NEED_TO_CHANGE_POSITION_SIDE'],
  })
  setPositionMode(@FapiInput(POSITION_MODE) q: FapiFields<typeof POSITION_MODE>): typeof SUCCESS {
    if (q.get('dualSidePosition'))
      throw new FapiError(
        'NO_NEED_TO_CHANGE_POSITION_SIDE',
        'Hedge mode is not supported: one-way mode only.',
      );
    return SUCCESS;
  }

  @Post('marginType')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'settings',
    summary: 'Set the margin type (cross only on FAPI)',
    response: Success,
    errors: [
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'INVALID_SYMBOL',
      'INVALID_DATA_FOR_PARAMETER',
      'NO_NEED_TO_CHANGE_MARGIN_TYPE',
    ],
  })
  setMarginType(@FapiInput(MARGIN_TYPE) q: FapiFields<typeof MARGIN_TYPE>): typeof SUCCESS {
    fapiMarket(this.markets, q.get('symbol'));
    const marginType = q.get('marginType');
    if (marginType === 'ISOLATED')
      throw new FapiError(
        'NO_NEED_TO_CHANGE_MARGIN_TYPE',
        'Isolated margin is not available on FAPI; use the native margin-mode endpoint.',
      );
    return SUCCESS;
  }
}
