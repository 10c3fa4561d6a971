import { Controller, Get, Inject } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, type RawParams, readBookTop, readTicker } from '@perp/contracts';
import { type Market, MarketRegistry } from '@perp/domain';
import { FapiParams } from '../../access';
import { bookTicker, fapiTicker, feedPrice, stats24h, tickerPrice } from '../../markets/ticker-view';
import { optionalMarket } from './market-params';

/**
 * Tickers from the market-data projections in the hot store (the same on every replica). With a
 * `symbol` (any alias) an object, without one an array of every market. Weights in PUBLIC_WEIGHTS.
 */
@Controller()
export class FapiTickersController {
  constructor(
    private readonly markets: MarketRegistry,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  @Get('fapi/v1/ticker/24hr')
  ticker24hr(@FapiParams() params: RawParams) {
    return this.each(params, async (m, now) =>
      fapiTicker(m, stats24h(await readTicker(this.hot, m.symbol), now)),
    );
  }

  @Get(['fapi/v1/ticker/price', 'fapi/v2/ticker/price'])
  price(@FapiParams() params: RawParams) {
    return this.each(params, async (m, now) =>
      tickerPrice(m, stats24h(await readTicker(this.hot, m.symbol), now)),
    );
  }

  @Get('fapi/v1/ticker/bookTicker')
  bookTicker(@FapiParams() params: RawParams) {
    return this.each(params, async (m, now) => {
      const [top, feed] = await Promise.all([
        readBookTop(this.hot, m.symbol),
        this.hot.hgetall(HOT_KEYS.price(m.symbol)),
      ]);
      return bookTicker(m, top, feedPrice(feed), now);
    });
  }

  private async each<T>(params: RawParams, view: (m: Market, now: number) => Promise<T>): Promise<T | T[]> {
    const one = optionalMarket(this.markets, params);
    const now = Date.now();
    if (one) return view(one, now);
    return Promise.all(this.markets.list().map((m) => view(m, now)));
  }
}
