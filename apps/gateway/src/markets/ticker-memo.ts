import type { TickerState } from '@perp/contracts';
import type { Market } from '@perp/domain';
import { stats24h, type TickerStats } from './ticker-view';

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
