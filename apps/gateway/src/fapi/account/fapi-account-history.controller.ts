import { Controller, Get } from '@nestjs/common';
import { FapiError, type RawParams, required, scalar } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { INCOME_TYPES, type IncomeType } from '@perp/persistence';
import { Caller, type FapiCaller, FapiParams, Signed } from '../../access';
import { fapiMarket } from '../../markets/market-lookup';
import { AccountHistory } from './account-history';
import { limitParam, timeParam, uuidParam } from './history-params';
import { fundingFeeView, incomeView } from './income-view';
import { userTradeView } from './trade-view';

/**
 * Income types Binance defines that this exchange never produces (spec: only REALIZED_PNL,
 * FUNDING_FEE and COMMISSION exist): asking for one is valid and finds nothing.
 */
const NEVER_PRODUCED = [
  'TRANSFER',
  'WELCOME_BONUS',
  'INSURANCE_CLEAR',
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

/** Trade, income and funding-fee history from Postgres (written by the projector). */
@Controller('fapi/v1')
export class FapiAccountHistoryController {
  constructor(
    private readonly history: AccountHistory,
    private readonly markets: MarketRegistry,
  ) {}

  @Get('userTrades')
  @Signed({ type: 'USER_DATA', weight: 5 })
  async userTrades(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const rows = await this.history.userTrades(caller, {
      symbol: market.symbol,
      fromId: uuidParam(params, 'fromId'),
      startTime: timeParam(params, 'startTime'),
      endTime: timeParam(params, 'endTime'),
      limit: limitParam(params, 500, 1000),
    });
    return rows.map(userTradeView);
  }

  @Get('income')
  @Signed({ type: 'USER_DATA', weight: 30 })
  async income(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    const symbol = this.optionalSymbol(params);
    const type = scalar(params, 'incomeType') || undefined;
    const known = type === undefined || (INCOME_TYPES as readonly string[]).includes(type);
    if (!known && !(NEVER_PRODUCED as readonly string[]).includes(type))
      throw new FapiError('INVALID_DATA_FOR_PARAMETER', 'Invalid incomeType.');
    const startTime = timeParam(params, 'startTime');
    const endTime = timeParam(params, 'endTime');
    const limit = limitParam(params, 100, 1000);
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
  async fundingFeeHistory(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    const symbol = this.optionalSymbol(params);
    const startTime = timeParam(params, 'startTime');
    const endTime = timeParam(params, 'endTime');
    const limit = limitParam(params, 100, 1000);
    const rows = await this.history.incomeHistory(caller, {
      symbol,
      incomeType: 'FUNDING_FEE',
      startTime,
      endTime,
      limit,
    });
    return rows.map(fundingFeeView);
  }

  private optionalSymbol(params: RawParams): string | undefined {
    const symbol = scalar(params, 'symbol');
    return symbol === undefined ? undefined : fapiMarket(this.markets, symbol).symbol;
  }
}
