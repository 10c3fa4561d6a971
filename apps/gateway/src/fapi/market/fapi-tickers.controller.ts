import { Controller, Get, Inject } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { BOOK_TOP_KEY, type FapiFields, HOT_KEYS, TICKER_KEY } from '@perp/contracts';
import { type Market, MarketRegistry } from '@perp/domain';
import { fapiMarket } from '../../markets/market-lookup';
import { BookTickerMemo, TickerMemo } from '../../markets/ticker-memo';
import { fapiTicker, tickerPrice } from '../../markets/ticker-view';
import { ApiDoc, type ApiDocSpec } from '../../openapi/api-doc';
import { BookTicker, oneOrAll, PriceTicker, Ticker24h } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { OPTIONAL_SYMBOL } from './market-params';

type Q = FapiFields<typeof OPTIONAL_SYMBOL>;
const doc = (summary: string, response: ApiDocSpec['response']): ApiDocSpec => ({
  tag: 'market',
  summary,
  description: 'With `symbol` one object, without it an array of every market.',
  response,
  errors: ['INVALID_SYMBOL'],
});

/**
 * Tickers from the market-data projections in the hot store (the same on every replica). With a
 * `symbol` (any alias) an object, without one an array of every market. Weights in PUBLIC_WEIGHTS.
 */
@Controller()
export class FapiTickersController {
  private readonly tickers = new TickerMemo(fapiTicker);
  private readonly prices = new TickerMemo(tickerPrice);
  private readonly books = new BookTickerMemo();

  constructor(
    private readonly markets: MarketRegistry,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  @Get('fapi/v1/ticker/24hr')
  @ApiDoc(doc('24 h rolling ticker', oneOrAll(Ticker24h)))
  ticker24hr(@FapiInput(OPTIONAL_SYMBOL) q: Q) {
    return this.each(q, async (m, now) =>
      this.tickers.view(m, await this.hot.get(TICKER_KEY(m.symbol)), now),
    );
  }

  @Get(['fapi/v1/ticker/price', 'fapi/v2/ticker/price'])
  @ApiDoc(doc('Last price', oneOrAll(PriceTicker)))
  price(@FapiInput(OPTIONAL_SYMBOL) q: Q) {
    return this.each(q, async (m, now) => this.prices.view(m, await this.hot.get(TICKER_KEY(m.symbol)), now));
  }

  @Get('fapi/v1/ticker/bookTicker')
  @ApiDoc(doc('Best bid and ask', oneOrAll(BookTicker)))
  bookTicker(@FapiInput(OPTIONAL_SYMBOL) q: Q) {
    return this.each(q, async (m, now) => {
      const [top, feed] = await Promise.all([
        this.hot.hgetall(BOOK_TOP_KEY(m.symbol)),
        this.hot.hgetall(HOT_KEYS.price(m.symbol)),
      ]);
      return this.books.view(m, top, feed, now);
    });
  }

  private async each<T>(q: Q, view: (m: Market, now: number) => Promise<T>): Promise<T | T[]> {
    const symbol = q.get('symbol');
    const one = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const now = Date.now();
    if (one) return view(one, now);
    return Promise.all(this.markets.list().map((m) => view(m, now)));
  }
}
