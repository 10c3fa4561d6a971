import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { boolParam, enumParam, FapiError, type RawParams, required, scalar } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { fapiMarket } from '../markets/market-lookup';
import { FapiParams, Signed } from './signed/signed';

const SUCCESS = { code: 200, msg: 'success' } as const;

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
  positionMode(): { dualSidePosition: false } {
    return { dualSidePosition: false };
  }

  @Post('positionSide/dual')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  setPositionMode(@FapiParams() params: RawParams): typeof SUCCESS {
    if (scalar(params, 'dualSidePosition') === undefined) required(params, 'dualSidePosition');
    if (boolParam(params, 'dualSidePosition'))
      throw new FapiError(
        'NO_NEED_TO_CHANGE_POSITION_SIDE',
        'Hedge mode is not supported: one-way mode only.',
      );
    return SUCCESS;
  }

  @Post('marginType')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  setMarginType(@FapiParams() params: RawParams): typeof SUCCESS {
    fapiMarket(this.markets, required(params, 'symbol'));
    const marginType = enumParam(params, 'marginType', ['CROSSED', 'ISOLATED'], 'INVALID_DATA_FOR_PARAMETER');
    if (marginType === 'ISOLATED')
      throw new FapiError(
        'NO_NEED_TO_CHANGE_MARGIN_TYPE',
        'Isolated margin is not available on FAPI; use the native margin-mode endpoint.',
      );
    return SUCCESS;
  }
}
