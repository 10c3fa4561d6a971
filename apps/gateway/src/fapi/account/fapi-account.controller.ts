import { Controller, Get, Inject } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { type FapiFields, fapiParam as P, readAdlRank } from '@perp/contracts';
import { MarketRegistry, type Money } from '@perp/domain';
import { z } from 'zod';
import { Caller, type FapiCaller, Signed } from '../../access';
import { ApiDoc, type ApiDocSpec } from '../../openapi/api-doc';
import { AnyRecord, oneOrAll } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { OPTIONAL_SYMBOL } from '../market/market-params';
import { fapiMarket } from '../../markets/market-lookup';
import { AccountReader, type AccountSnapshot } from './account-reader';
import { activeSymbols, allSymbols } from './account-symbols';
import { accountV2, accountV3 } from './account-view';
import { accountTotals, balanceRows } from './balance-view';
import { adlQuantileView } from './force-order-view';
import { commissionRateView, leverageBracketView } from './leverage-bracket-view';
import { positionRiskV2Row, positionRiskV3Row, symbolRisks } from './position-risk-view';

type Q = FapiFields<typeof OPTIONAL_SYMBOL>;
const SYMBOL = { symbol: P.symbol() };
const doc = (summary: string, response: z.ZodType = z.array(AnyRecord)): ApiDocSpec => ({
  tag: 'account',
  summary,
  description: 'Fields: apps/gateway/src/fapi/account/README.md (Binance’s records).',
  response,
  errors: ['INVALID_SYMBOL'],
});

/**
 * Balances, account information, position risk, brackets and commission rates: read from the
 * account projection the risk shards keep in the hot store (see README).
 */
@Controller('fapi')
export class FapiAccountController {
  constructor(
    private readonly reader: AccountReader,
    private readonly markets: MarketRegistry,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  @Get(['v2/balance', 'v3/balance'])
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc(doc('Balances'))
  async balance(@Caller() caller: FapiCaller) {
    const s = await this.reader.snapshot(caller.address);
    return balanceRows(accountTotals(s, this.reader.marketLookup), caller.address);
  }

  @Get('v2/account')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc(doc('Account information (v2: every market in positions)', AnyRecord))
  async accountV2(@Caller() caller: FapiCaller) {
    const s = await this.reader.snapshot(caller.address, this.listed());
    const risks = symbolRisks(s, allSymbols(s, this.markets), this.reader.marketLookup, this.takerRate(s));
    return accountV2(accountTotals(s, this.reader.marketLookup), risks, s.account.vipTier);
  }

  @Get('v3/account')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc(doc('Account information (v3: active symbols only)', AnyRecord))
  async accountV3(@Caller() caller: FapiCaller) {
    const s = await this.reader.snapshot(caller.address);
    const risks = symbolRisks(s, activeSymbols(s, this.markets), this.reader.marketLookup, this.takerRate(s));
    return accountV3(accountTotals(s, this.reader.marketLookup), risks);
  }

  /** v1 and v2: one row per symbol (every market without `symbol`), flat ones included. */
  @Get(['v1/positionRisk', 'v2/positionRisk'])
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc(doc('Position risk, one row per symbol'))
  async positionRisk(@Caller() caller: FapiCaller, @FapiInput(OPTIONAL_SYMBOL) q: Q) {
    const symbol = q.get('symbol');
    const market = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const s = await this.reader.snapshot(caller.address, market ? [market.symbol] : this.listed());
    const symbols = market ? [market.symbol] : allSymbols(s, this.markets);
    return symbolRisks(s, symbols, this.reader.marketLookup, this.takerRate(s)).map(positionRiskV2Row);
  }

  /** v3: only symbols with a position or open orders (Binance "Position Information V3"). */
  @Get('v3/positionRisk')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc(doc('Position risk of symbols with a position or open orders'))
  async positionRiskV3(@Caller() caller: FapiCaller, @FapiInput(OPTIONAL_SYMBOL) q: Q) {
    const symbol = q.get('symbol');
    const market = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const s = await this.reader.snapshot(caller.address);
    const symbols = activeSymbols(s, this.markets).filter((x) => !market || x === market.symbol);
    const risks = symbolRisks(s, symbols, this.reader.marketLookup, this.takerRate(s));
    const adl = await Promise.all(
      risks.map(async (r) =>
        r.position
          ? adlQuantileView(r.symbol, r.size, await readAdlRank(this.hot, r.symbol, caller.address))
              .adlQuantile.BOTH
          : 0,
      ),
    );
    return risks.map((r, i) => positionRiskV3Row(r, adl[i]));
  }

  /** With `symbol` one object, without it an array of every market (as Binance). */
  @Get('v1/leverageBracket')
  @Signed({ type: 'USER_DATA', weight: 1 })
  @ApiDoc(doc('Maintenance-margin brackets', oneOrAll(AnyRecord)))
  leverageBracket(@FapiInput(OPTIONAL_SYMBOL) q: Q) {
    const symbol = q.get('symbol');
    if (symbol !== undefined) return leverageBracketView(fapiMarket(this.markets, symbol));
    return this.markets.list().map(leverageBracketView);
  }

  @Get('v1/commissionRate')
  @Signed({ type: 'USER_DATA', weight: 20 })
  @ApiDoc({
    ...doc(
      'Your maker and taker fee rates',
      z.object({ symbol: z.string(), makerCommissionRate: z.string(), takerCommissionRate: z.string() }),
    ),
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'INVALID_SYMBOL'],
  })
  async commissionRate(@Caller() caller: FapiCaller, @FapiInput(SYMBOL) q: FapiFields<typeof SYMBOL>) {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const { account } = await this.reader.load(caller.address);
    return commissionRateView(market.symbol, this.reader.feeRates(account));
  }

  private takerRate(s: AccountSnapshot): Money {
    return this.reader.feeRates(s.account).taker;
  }

  private listed(): string[] {
    return this.markets.list().map((m) => m.symbol);
  }
}
