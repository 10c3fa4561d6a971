import { Controller, Get } from '@nestjs/common';
import type { FapiErrorName, FapiFields } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { MarketDataRepository } from '@perp/persistence';
import { z } from 'zod';
import { fapiMarket } from '../../markets/market-lookup';
import { ApiDoc } from '../../openapi/api-doc';
import { AggTrade, PublicTrade } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import {
  AGG_TRADES_PARAMS,
  checkAggTradesWindow,
  HISTORICAL_TRADES_PARAMS,
  TRADES_PARAMS,
} from './market-params';
import { aggTradeView, publicTradeView } from './trade-views';

const ERRORS: FapiErrorName[] = ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'ILLEGAL_CHARS', 'INVALID_SYMBOL'];

/** Public trades and aggregate trades from the Postgres projections, oldest first (as Binance). */
@Controller('fapi/v1')
export class FapiTradesController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly md: MarketDataRepository,
  ) {}

  /** The latest trades. */
  @Get('trades')
  @ApiDoc({ tag: 'market', summary: 'Latest trades', response: z.array(PublicTrade), errors: ERRORS })
  async trades(@FapiInput(TRADES_PARAMS) q: FapiFields<typeof TRADES_PARAMS>) {
    const m = fapiMarket(this.markets, q.get('symbol'));
    const rows = await this.md.trades(m.symbol, q.get('limit'));
    return rows.map((t) => publicTradeView(m, t));
  }

  /**
   * Trades from `fromId` on (the latest without it). Binance asks for an API key here (MARKET_DATA);
   * the trades are the same public ones as `trades`, so no key is required and a sent one is ignored.
   */
  @Get('historicalTrades')
  @ApiDoc({
    tag: 'market',
    summary: 'Trades from an id on',
    description: 'No API key needed (Binance asks for one; a sent key is ignored).',
    response: z.array(PublicTrade),
    errors: ERRORS,
  })
  async historicalTrades(
    @FapiInput(HISTORICAL_TRADES_PARAMS) q: FapiFields<typeof HISTORICAL_TRADES_PARAMS>,
  ) {
    const m = fapiMarket(this.markets, q.get('symbol'));
    const limit = q.get('limit');
    const rows = await this.md.trades(m.symbol, limit, q.get('fromId'));
    return rows.map((t) => publicTradeView(m, t));
  }

  /**
   * Aggregates from `fromId` on (which then decides alone), else in the time window (at most an
   * hour when both ends are given), else the latest.
   */
  @Get('aggTrades')
  @ApiDoc({
    tag: 'market',
    summary: 'Aggregate trades',
    description:
      'From `fromId` on, else in the time window (at most one hour when both ends are sent), else the latest.',
    response: z.array(AggTrade),
    errors: [...ERRORS, 'INVALID_DATA_FOR_PARAMETER'],
  })
  async aggTrades(@FapiInput(AGG_TRADES_PARAMS) q: FapiFields<typeof AGG_TRADES_PARAMS>) {
    const m = fapiMarket(this.markets, q.get('symbol'));
    const fromId = q.get('fromId');
    const [startTime, endTime] = [q.get('startTime'), q.get('endTime')];
    checkAggTradesWindow(startTime, endTime);
    const limit = q.get('limit');
    const rows = await this.md.aggTrades(m.symbol, { startTime, endTime, fromId, limit });
    return rows.map((a) => aggTradeView(m, a));
  }
}
