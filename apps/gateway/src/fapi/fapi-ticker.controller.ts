import { Controller, Get, Query } from '@nestjs/common';
import { MarketRegistry } from '@perp/domain';
import { TickerBook } from '@perp/infrastructure';
import { fapiMarket } from '../markets/market-lookup';
import { fapiTicker } from '../markets/ticker-view';
import { bySymbol } from '../rate-limits/rate-limit-rules';
import { Weight } from '../rate-limits/weight.decorator';

@Controller('fapi/v1/ticker')
export class FapiTickerController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly tickers: TickerBook,
  ) {}

  /** One symbol (any alias) gives an object; no symbol gives every market as an array. */
  @Get('24hr')
  @Weight(bySymbol(1, 40))
  ticker24hr(@Query('symbol') symbol?: unknown) {
    const now = Date.now();
    if (symbol === undefined)
      return this.markets.list().map((m) => fapiTicker(m, this.tickers.stats(m.symbol, now)));
    const m = fapiMarket(this.markets, symbol);
    return fapiTicker(m, this.tickers.stats(m.symbol, now));
  }
}
