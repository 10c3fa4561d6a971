import { Controller, HttpCode, Post } from '@nestjs/common';
import { FapiError } from '@perp/contracts';
import { Signed } from '../../access';
import { ApiDoc } from '../../openapi/api-doc';

/**
 * Binance paths the spec reserves without serving them. Both are authenticated like any TRADE
 * endpoint, then refused with a 400 whose code says why (README: "Reserved endpoints").
 */
@Controller('fapi/v1')
export class FapiReservedController {
  /** Isolated position margin: FAPI is cross only (the spec's -4046 for isolated on FAPI). */
  @Post('positionMargin')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'settings',
    summary: 'Reserved: isolated position margin is not on FAPI (always -4046)',
    description: 'Use the native collateral routes instead.',
    errors: ['NO_NEED_TO_CHANGE_MARGIN_TYPE'],
  })
  positionMargin(): never {
    throw new FapiError(
      'NO_NEED_TO_CHANGE_MARGIN_TYPE',
      'Isolated position margin is not available on FAPI (cross margin only); use the native ' +
        'collateral endpoints POST /api/v1/positions/{position_id}/collateral/add and /remove.',
    );
  }

  /** Conditional orders are algo orders (as TRAILING_STOP_MARKET on /fapi/v1/order: -1130). */
  @Post('conditional/order')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'orders',
    summary: 'Reserved: conditional orders are algo orders (always -1130)',
    errors: ['INVALID_DATA_FOR_PARAMETER'],
  })
  conditionalOrder(): never {
    throw new FapiError(
      'INVALID_DATA_FOR_PARAMETER',
      'Conditional orders are placed with POST /fapi/v1/algoOrder.',
    );
  }
}
