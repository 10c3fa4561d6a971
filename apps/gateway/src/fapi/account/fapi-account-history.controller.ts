import { Controller, Get } from '@nestjs/common';
import { type FapiFields, fapiParam as P } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { INCOME_TYPES, type IncomeType } from '@perp/persistence';
import { z } from 'zod';
import { Caller, type FapiCaller, Signed } from '../../access';
import { ApiDoc } from '../../openapi/api-doc';
import { AnyRecord, UserTrade } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { fapiMarket } from '../../markets/market-lookup';
import { AccountHistory } from './account-history';
import { FUNDING_FEE_PARAMS, USER_TRADES_PARAMS } from './history-params';
import { fundingFeeView, incomeView } from './income-view';
import { userTradeView } from './trade-view';

/**
 * Income types Binance defines that this exchange never produces (spec: only REALIZED_PNL,
 * FUNDING_FEE and COMMISSION exist): asking for one is valid and finds nothing.
 */
const NEVER_PRODUCED = [
  'TRANSFER',
  'WELCOME_BONUS',
  'REFERRAL_KICKBACK',
  'COMMISSION_REBATE',
  'API_REBATE',
  'CONTEST_REWARD',
  'CROSS_COLLATERAL_TRANSFER',
  'OPTIONS_PREMIUM_FEE',
  'OPTIONS_SETTLE_PROFIT',
  'INTERNAL_TRANSFER',
  'AUTO_EXCHANGE',
  'DELIVERED_SETTELMENT',
  'COIN_SWAP_DEPOSIT',
  'COIN_SWAP_WITHDRAW',
  'POSITION_LIMIT_INCREASE_FEE',
  'STRATEGY_UMFUTURES_TRANSFER',
  'FEE_RETURN',
  'BFUSD_REWARD',
] as const;

const INCOME_PARAMS = {
  symbol: FUNDING_FEE_PARAMS.symbol,
  incomeType: P.oneOf(
    [...INCOME_TYPES, ...NEVER_PRODUCED] as unknown as [string, ...string[]],
    'INVALID_DATA_FOR_PARAMETER',
    `Only ${INCOME_TYPES.join(', ')} are ever produced; Binance's other types are valid and find nothing`,
  ).optional(),
  startTime: FUNDING_FEE_PARAMS.startTime,
  endTime: FUNDING_FEE_PARAMS.endTime,
  limit: FUNDING_FEE_PARAMS.limit,
};
const ERRORS = ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'ILLEGAL_CHARS', 'INVALID_SYMBOL'] as const;
const records = z.array(AnyRecord);

/** Trade, income and funding-fee history from Postgres (written by the projector). */
@Controller('fapi/v1')
export class FapiAccountHistoryController {
  constructor(
    private readonly history: AccountHistory,
    private readonly markets: MarketRegistry,
  ) {}

  @Get('userTrades')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc({
    tag: 'account',
    summary: 'Your trades of a symbol',
    response: z.array(UserTrade),
    errors: ERRORS,
  })
  async userTrades(
    @Caller() caller: FapiCaller,
    @FapiInput(USER_TRADES_PARAMS) q: FapiFields<typeof USER_TRADES_PARAMS>,
  ) {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const rows = await this.history.userTrades(caller, {
      symbol: market.symbol,
      fromId: q.get('fromId'),
      startTime: q.get('startTime'),
      endTime: q.get('endTime'),
      limit: q.get('limit'),
    });
    return rows.map(userTradeView);
  }

  @Get('income')
  @Signed({ type: 'USER_DATA', weight: 30 })
  @ApiDoc({
    tag: 'account',
    summary: 'Income history (realized PnL, funding fees, commissions)',
    response: records,
    errors: [...ERRORS, 'INVALID_DATA_FOR_PARAMETER'],
  })
  async income(@Caller() caller: FapiCaller, @FapiInput(INCOME_PARAMS) q: FapiFields<typeof INCOME_PARAMS>) {
    const symbol = this.optionalSymbol(q.get('symbol'));
    const type = q.get('incomeType');
    const known = type === undefined || (INCOME_TYPES as readonly string[]).includes(type);
    const startTime = q.get('startTime');
    const endTime = q.get('endTime');
    const limit = q.get('limit');
    if (!known) return [];
    const incomeType = type as IncomeType | undefined;
    const rows = await this.history.incomeHistory(caller, {
      symbol,
      incomeType,
      startTime,
      endTime,
      limit,
    });
    return rows.map(incomeView);
  }

  /** FUNDING_FEE income with the settled funding rate (see README: Binance has no such endpoint). */
  @Get('fundingFeeHistory')
  @Signed({ type: 'USER_DATA', weight: 30 })
  @ApiDoc({
    tag: 'account',
    summary: 'Funding fees with the settled funding rate',
    response: records,
    errors: ERRORS,
  })
  async fundingFeeHistory(
    @Caller() caller: FapiCaller,
    @FapiInput(FUNDING_FEE_PARAMS) q: FapiFields<typeof FUNDING_FEE_PARAMS>,
  ) {
    const symbol = this.optionalSymbol(q.get('symbol'));
    const startTime = q.get('startTime');
    const endTime = q.get('endTime');
    const limit = q.get('limit');
    const rows = await this.history.incomeHistory(caller, {
      symbol,
      incomeType: 'FUNDING_FEE',
      startTime,
      endTime,
      limit,
    });
    return rows.map(fundingFeeView);
  }

  private optionalSymbol(symbol: string | undefined): string | undefined {
    return symbol === undefined ? undefined : fapiMarket(this.markets, symbol).symbol;
  }
}
