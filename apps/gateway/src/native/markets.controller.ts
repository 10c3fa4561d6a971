import { Controller, Get, Inject } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { readTicker } from '@perp/contracts';
import { type Market, MarketRegistry } from '@perp/domain';
import { z } from 'zod';
import { MarketStatsReader } from '../fapi/market-stats/market-stats.reader';
import { stats24h, tickerFigures } from '../markets/ticker-view';
import { ApiDoc } from '../openapi/api-doc';
import { NativeMarket } from '../openapi/native-responses';
import { nativePriceFields } from './funding-rate-view';

/** Native market list: what a front end needs to draw a market picker in one call. */
@Controller('api/v1/markets')
export class NativeMarketsController {
  constructor(
    private readonly markets: MarketRegistry,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly stats: MarketStatsReader,
  ) {}

  @Get()
  @ApiDoc({
    tag: 'markets',
    summary: 'Markets with their 24 h figures, mark price and funding, in sort order',
    response: z.array(NativeMarket),
  })
  list() {
    const now = Date.now();
    return Promise.all(this.markets.list().map((m) => this.view(m, now)));
  }

  /** The 24 h figures are the FAPI ticker's (the market-data projection), in snake case. */
  private async view(m: Market, now: number) {
    const [ticker, prices] = await Promise.all([readTicker(this.hot, m.symbol), this.stats.price(m.symbol)]);
    const s = stats24h(ticker, now);
    const t = tickerFigures(m, s);
    return {
      symbol: m.symbol,
      base_asset: m.baseAsset,
      quote_asset: m.quoteAsset,
      status: m.status,
      last_price: t.lastPrice,
      price_change_24h: t.priceChange,
      price_change_percent_24h: t.priceChangePercent,
      high_24h: t.highPrice,
      low_24h: t.lowPrice,
      volume_24h: t.volume,
      quote_volume_24h: t.quoteVolume,
      trades_24h: s.count,
      rank: m.rank,
      leverage: m.maxLeverage,
      sort_order: m.sortOrder,
      tick_size: m.tickSize,
      lot_size: m.lotSize,
      min_order_size_usd: m.minOrderSizeUsd,
      max_order_size_usd: m.maxOrderSizeUsd,
      ...nativePriceFields(m, prices, now),
    };
  }
}
