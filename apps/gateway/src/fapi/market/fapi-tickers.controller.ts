import { Controller, Get, Inject } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { BOOK_TOP_KEY, type FapiFields, HOT_KEYS, TICKER_KEY } from '@perp/contracts';
import { type Market, MarketRegistry } from '@perp/domain';
import { LocalAnswers } from '../../markets/local-answers';
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
  // One-symbol bodies per market object (a changed market is a new object), see `*Now`.
  private readonly tickerBodies: LocalAnswers<Market>;
  private readonly priceBodies: LocalAnswers<Market>;
  private readonly bookBodies: LocalAnswers<Market>;

  constructor(
    private readonly markets: MarketRegistry,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {
    this.tickerBodies = new LocalAnswers(hot);
    this.priceBodies = new LocalAnswers(hot);
    this.bookBodies = new LocalAnswers(hot);
  }

  @Get('fapi/v1/ticker/24hr')
  @ApiDoc(doc('24 h rolling ticker', oneOrAll(Ticker24h)))
  ticker24hr(@FapiInput(OPTIONAL_SYMBOL) q: Q) {
    return this.each(q, (m, now) => this.projectedTicker(m, now, this.tickers, this.tickerBodies));
  }

  @Get(['fapi/v1/ticker/price', 'fapi/v2/ticker/price'])
  @ApiDoc(doc('Last price', oneOrAll(PriceTicker)))
  price(@FapiInput(OPTIONAL_SYMBOL) q: Q) {
    return this.each(q, (m, now) => this.projectedTicker(m, now, this.prices, this.priceBodies));
  }

  @Get('fapi/v1/ticker/bookTicker')
  @ApiDoc(doc('Best bid and ask', oneOrAll(BookTicker)))
  bookTicker(@FapiInput(OPTIONAL_SYMBOL) q: Q) {
    return this.each(q, async (m, now) => {
      const keys = [BOOK_TOP_KEY(m.symbol), HOT_KEYS.price(m.symbol)] as const;
      const versions = this.bookBodies.versions(keys);
      const [top, feed] = await Promise.all([this.hot.hgetall(keys[0]), this.hot.hgetall(keys[1])]);
      const view = this.books.view(m, top, feed, now);
      // A view stamped with the request's time (nothing projected yet) is the answer for this
      // millisecond only.
      const until = view.time === now ? now + 1 : Infinity;
      this.bookBodies.keep(m, keys, versions, () => Buffer.from(JSON.stringify(view)), until);
      return view;
    });
  }

  /**
   * The one-symbol answers of the routes above as kept bytes when nothing they were made from has
   * changed since (an in-process store only: LocalAnswers); undefined otherwise, and the route
   * answers as usual.
   */
  ticker24hrNow(q: Q): Buffer | undefined {
    return this.keptOne(q, this.tickerBodies);
  }

  priceNow(q: Q): Buffer | undefined {
    return this.keptOne(q, this.priceBodies);
  }

  bookTickerNow(q: Q): Buffer | undefined {
    return this.keptOne(q, this.bookBodies);
  }

  private keptOne(q: Q, bodies: LocalAnswers<Market>): Buffer | undefined {
    const symbol = bodies.active ? q.get('symbol') : undefined;
    return symbol === undefined ? undefined : bodies.get(fapiMarket(this.markets, symbol), Date.now());
  }

  private async projectedTicker<V>(
    m: Market,
    now: number,
    memo: TickerMemo<V>,
    bodies: LocalAnswers<Market>,
  ) {
    const keys = [TICKER_KEY(m.symbol)];
    const versions = bodies.versions(keys);
    const raw = await this.hot.get(keys[0]!);
    const view = memo.view(m, raw, now);
    // Without a projected state the view is of the 24 h before `now`: the answer for this millisecond.
    const until = raw === undefined ? now + 1 : Infinity;
    bodies.keep(m, keys, versions, () => Buffer.from(JSON.stringify(view)), until);
    return view;
  }

  private async each<T>(q: Q, view: (m: Market, now: number) => Promise<T>): Promise<T | T[]> {
    const symbol = q.get('symbol');
    const one = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const now = Date.now();
    if (one) return view(one, now);
    return Promise.all(this.markets.list().map((m) => view(m, now)));
  }
}
