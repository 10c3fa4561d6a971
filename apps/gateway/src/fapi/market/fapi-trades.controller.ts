import { Controller, Get } from '@nestjs/common';
import type { RawParams } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { MarketDataRepository } from '@perp/persistence';
import { FapiParams } from '../../access';
import { aggTradesWindow, idParam, limitParam, marketParam } from './market-params';
import { aggTradeView, publicTradeView } from './trade-views';

/** Public trades and aggregate trades from the Postgres projections, oldest first (as Binance). */
@Controller('fapi/v1')
export class FapiTradesController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly md: MarketDataRepository,
  ) {}

  /** The latest trades. */
  @Get('trades')
  async trades(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'symbol');
    const rows = await this.md.trades(m.symbol, limitParam(params, 500, 1000));
    return rows.map((t) => publicTradeView(m, t));
  }

  /**
   * Trades from `fromId` on (the latest without it). Binance asks for an API key here (MARKET_DATA);
   * the trades are the same public ones as `trades`, so no key is required and a sent one is ignored.
   */
  @Get('historicalTrades')
  async historicalTrades(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'symbol');
    const limit = limitParam(params, 100, 500);
    const rows = await this.md.trades(m.symbol, limit, idParam(params, 'fromId'));
    return rows.map((t) => publicTradeView(m, t));
  }

  /**
   * Aggregates from `fromId` on (which then decides alone), else in the time window (at most an
   * hour when both ends are given), else the latest.
   */
  @Get('aggTrades')
  async aggTrades(@FapiParams() params: RawParams) {
    const m = marketParam(this.markets, params, 'symbol');
    const fromId = idParam(params, 'fromId');
    const window = aggTradesWindow(params);
    const limit = limitParam(params, 500, 1000);
    const rows = await this.md.aggTrades(m.symbol, { ...window, fromId, limit });
    return rows.map((a) => aggTradeView(m, a));
  }
}
