import { bookTopOf, type TickerState } from '@perp/contracts';
import type { Market } from '@perp/domain';
import { bookTicker, feedPrice, stats24h, type TickerStats } from './ticker-view';

/**
 * A ticker view rendered once per (market, projected state): the projection changes with trades
 * and window rolls, and is read far more often. Without a projected state the view depends on
 * `now`, so it is rendered each time. Views are shared between answers: never change one.
 */
export class TickerMemo<V> {
  private readonly last = new Map<string, { market: Market; raw: string; view: V }>();

  constructor(private readonly render: (m: Market, s: TickerStats) => V) {}

  /** `raw`: the projection's JSON (`TICKER_KEY`), undefined when the market never traded. */
  view(m: Market, raw: string | undefined, now: number): V {
    if (raw === undefined) return this.render(m, stats24h(undefined, now));
    const hit = this.last.get(m.symbol);
    if (hit && hit.raw === raw && hit.market === m) return hit.view;
    const view = this.render(m, stats24h(JSON.parse(raw) as TickerState, now));
    this.last.set(m.symbol, { market: m, raw, view });
    return view;
  }
}

type BookTickerView = ReturnType<typeof bookTicker>;

/**
 * `ticker/bookTicker` views likewise, per (market, book-top hash, price-feed hash). A view whose
 * time is the request's (nothing projected yet) is not kept.
 */
export class BookTickerMemo {
  private readonly last = new Map<string, { market: Market; key: string; view: BookTickerView }>();

  view(m: Market, top: Record<string, string>, feed: Record<string, string>, now: number): BookTickerView {
    const key = JSON.stringify([
      top.bidPrice,
      top.bidQty,
      top.askPrice,
      top.askQty,
      top.seq,
      top.time,
      feed.indexPrice,
      feed.markPrice,
      feed.time,
    ]);
    const hit = this.last.get(m.symbol);
    if (hit && hit.key === key && hit.market === m) return hit.view;
    const view = bookTicker(m, bookTopOf(m.symbol, top), feedPrice(feed), now);
    if (view.time !== now) this.last.set(m.symbol, { market: m, key, view });
    return view;
  }
}
