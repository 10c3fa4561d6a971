import { Controller, Get, Inject } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { type FapiFields, fapiParam as P, readAdlRank } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { AUTO_CLOSE_TYPES, ForceOrderRepository } from '@perp/persistence';
import { z } from 'zod';
import { Caller, type FapiCaller, Signed } from '../../access';
import { fapiMarket } from '../../markets/market-lookup';
import { ApiDoc } from '../../openapi/api-doc';
import { AdlQuantile, ForceOrder } from '../../openapi/liquidation-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { OPTIONAL_SYMBOL } from '../market/market-params';
import { AccountReader } from './account-reader';
import { adlQuantileView, forceOrderView } from './force-order-view';
import { FUNDING_FEE_PARAMS } from './history-params';
import { HistoryFreshness } from './history-freshness';

const FORCE_ORDERS_PARAMS = {
  symbol: FUNDING_FEE_PARAMS.symbol,
  autoCloseType: P.oneOf(
    AUTO_CLOSE_TYPES as unknown as ['LIQUIDATION', 'ADL'],
    'INVALID_DATA_FOR_PARAMETER',
    'LIQUIDATION (liquidations) or ADL (ADL closes); without it, both',
  ).optional(),
  startTime: FUNDING_FEE_PARAMS.startTime,
  endTime: FUNDING_FEE_PARAMS.endTime,
  limit: FUNDING_FEE_PARAMS.limit,
};

/** Force orders (Postgres, written by the history projector) and ADL quantiles (hot store). */
@Controller('fapi/v1')
export class FapiLiquidationController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly forceOrders: ForceOrderRepository,
    private readonly freshness: HistoryFreshness,
    private readonly reader: AccountReader,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  @Get('forceOrders')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc({
    tag: 'account',
    summary: 'Your liquidations and ADL closes',
    description:
      'The latest `limit` rows in [startTime, endTime], newest first; `autoCloseType` filters one kind.',
    response: z.array(ForceOrder),
    errors: [
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'ILLEGAL_CHARS',
      'INVALID_SYMBOL',
      'INVALID_DATA_FOR_PARAMETER',
    ],
  })
  async forceOrdersOf(
    @Caller() caller: FapiCaller,
    @FapiInput(FORCE_ORDERS_PARAMS) q: FapiFields<typeof FORCE_ORDERS_PARAMS>,
  ) {
    const raw = q.get('symbol');
    const symbol = raw === undefined ? undefined : fapiMarket(this.markets, raw).symbol;
    const autoCloseType = q.get('autoCloseType');
    const startTime = q.get('startTime');
    const endTime = q.get('endTime');
    const limit = q.get('limit');
    await this.freshness.caughtUp(caller.address);
    const rows = await this.forceOrders.listByUser(caller.userId, {
      symbol,
      autoCloseType,
      startTime,
      endTime,
      limit,
    });
    return rows.map(forceOrderView);
  }

  @Get('adlQuantile')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc({
    tag: 'account',
    summary: 'ADL quantiles of your positions',
    description:
      'With `symbol`, that market (0s without a position); without, every market you hold a position in.',
    response: z.array(AdlQuantile),
    errors: ['INVALID_SYMBOL'],
  })
  async adlQuantile(
    @Caller() caller: FapiCaller,
    @FapiInput(OPTIONAL_SYMBOL) q: FapiFields<typeof OPTIONAL_SYMBOL>,
  ) {
    const raw = q.get('symbol');
    const wanted = raw === undefined ? undefined : fapiMarket(this.markets, raw).symbol;
    const { account } = await this.reader.load(caller.address);
    const symbols = wanted
      ? [wanted]
      : account
          .positions()
          .map((p) => p.symbol)
          .sort();
    return Promise.all(
      symbols.map(async (symbol) =>
        adlQuantileView(
          symbol,
          account.position(symbol)?.size,
          await readAdlRank(this.hot, symbol, caller.address),
        ),
      ),
    );
  }
}
