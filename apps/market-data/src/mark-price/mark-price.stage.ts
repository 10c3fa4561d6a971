import { Inject, Injectable } from '@nestjs/common';
import { Bus, type BusMessage, RARE_TOPIC_FETCH_WAIT_MS } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { outputId, type PriceEvent, readDepth, readTicker, TOPICS } from '@perp/contracts';
import {
  type BookSides,
  MarketRegistry,
  MarkPriceTracker,
  type MarkReading,
  type MarkTrackerState,
  Money,
} from '@perp/domain';
import { SnapshotStage, validMessages } from '@perp/infrastructure';
import { ProcessedOffsetRepository, ShardSnapshotRepository } from '@perp/persistence';

export const MARK_PRICE_STAGE = 'mark-price';

type MarkPriceEvent = Extract<PriceEvent, { type: 'price.mark' }>;

/** What the market looked like when an index tick arrived: its L2 book and last price. */
interface MarketView {
  book: BookSides;
  lastPrice: Money | undefined;
}

/** The mark event of a reading; its id is the index tick's place, so a replay re-emits the same id. */
export function markEvent(symbol: string, r: MarkReading, id: string, lastPrice?: Money): MarkPriceEvent {
  return {
    id,
    v: 1,
    time: r.time,
    type: 'price.mark',
    symbol,
    markPrice: r.markPrice.toFixed(),
    indexPrice: r.indexPrice.toFixed(),
    lastPrice: lastPrice?.toFixed() ?? '0',
    premiumIndex: r.premiumIndex.toFixed(),
    fundingRate: r.fundingRate.toFixed(),
    interestRate: r.interestRate.toFixed(),
    nextFundingTime: r.nextFundingTime,
  };
}

/**
 * The mark price (Binance's method, libs/domain MarkPriceTracker): at each `price.index` tick of
 * the prices log, the book and last price as market data projected them, one premium and basis
 * sample (cadence and window by the tick's time), and one `price.mark` on the prices log, keyed by
 * symbol (so in the same partition, after its index). Trackers per partition are snapshotted with
 * the consumer's mark each turn (SnapshotStage).
 */
@Injectable()
export class MarkPriceStage extends SnapshotStage<Map<string, MarkPriceTracker>> {
  constructor(
    bus: Bus,
    offsets: ProcessedOffsetRepository,
    snapshots: ShardSnapshotRepository,
    private readonly registry: MarketRegistry,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {
    // Index prices come about once a second per symbol (a feed's interval, an operator's push).
    super(bus, offsets, snapshots, MARK_PRICE_STAGE, TOPICS.prices.name, RARE_TOPIC_FETCH_WAIT_MS);
  }

  protected emptyState(): Map<string, MarkPriceTracker> {
    return new Map();
  }

  protected encode(state: Map<string, MarkPriceTracker>): Record<string, MarkTrackerState> {
    return Object.fromEntries([...state].map(([symbol, t]) => [symbol, t.toJSON()]));
  }

  protected decode(json: unknown): Map<string, MarkPriceTracker> {
    const entries = Object.entries(json as Record<string, unknown>);
    return new Map(entries.map(([symbol, s]) => [symbol, MarkPriceTracker.fromJSON(s)]));
  }

  protected async applyTurn(
    state: Map<string, MarkPriceTracker>,
    messages: readonly BusMessage[],
  ): Promise<void> {
    const views = new Map<string, MarketView>();
    const marks: MarkPriceEvent[] = [];
    for (const { m, value: e } of validMessages('prices', messages, this.logger)) {
      if (e.type !== 'price.index') continue;
      const market = this.registry.find(e.symbol);
      if (!market) continue;
      let view = views.get(e.symbol);
      if (!view) views.set(e.symbol, (view = await this.view(e.symbol)));
      let tracker = state.get(e.symbol);
      if (!tracker) state.set(e.symbol, (tracker = MarkPriceTracker.start(e.time, market)));
      const r = tracker.observe(market, {
        time: e.time,
        index: new Money(e.indexPrice),
        book: view.book,
        lastPrice: view.lastPrice,
      });
      if (r) marks.push(markEvent(e.symbol, r, outputId(m.topic, m.partition, m.offset, 0), view.lastPrice));
    }
    await Promise.all(marks.map((e) => this.bus.publish(TOPICS.prices.name, e.symbol, e)));
  }

  /** The projected book, sorted best first, and the last trade price. */
  private async view(symbol: string): Promise<MarketView> {
    const [depth, ticker] = await Promise.all([readDepth(this.hot, symbol), readTicker(this.hot, symbol)]);
    const byPrice = (a: readonly [string, string], b: readonly [string, string]) =>
      new Money(a[0]).comparedTo(new Money(b[0])) ?? 0;
    const last = ticker ? new Money(ticker.lastPrice) : undefined;
    return {
      book: { bids: depth.bids.sort((a, b) => byPrice(b, a)), asks: depth.asks.sort(byPrice) },
      lastPrice: last?.gt(0) ? last : undefined,
    };
  }
}
