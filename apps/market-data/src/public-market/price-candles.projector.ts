import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { afterBatch, Bus, type BusMessage, type Subscription } from '@perp/bus';
import { subscribeAtMark, validMessages } from '@perp/infrastructure';
import { TOPICS } from '@perp/contracts';
import { CandleSeries, Money } from '@perp/domain';
import {
  type CandleSeriesName,
  type MarketCandleEntity,
  MarketDataRepository,
  MarketDataWrites,
  ProcessedOffsetRepository,
} from '@perp/persistence';
import { candleRow, candleUpdate } from './symbol-market';

export const PRICE_CANDLES_CONSUMER = 'price-candles';
type PriceSeries = Record<'index' | 'mark' | 'premium', CandleSeries>;
const MAX_TURN = 1000;

/**
 * The price series sampled from the prices log: index from `price.index`, mark and premium index
 * from `price.mark`. The same turn shape as the trades: states per partition, one transaction with
 * the consumer's mark.
 */
@Injectable()
export class PriceCandlesProjector implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PRICE_CANDLES_CONSUMER);
  private subscription?: Subscription;
  private readonly states = new Map<number, Map<string, PriceSeries>>();

  constructor(
    private readonly bus: Bus,
    private readonly marks: ProcessedOffsetRepository,
    private readonly repo: MarketDataRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await subscribeAtMark(this.bus, {
      name: PRICE_CANDLES_CONSUMER,
      topics: [TOPICS.prices.name],
      marks: this.marks,
      forget: (p) => this.states.delete(p),
      batchHandler: (ms) => this.handleTurn(ms),
      maxBatch: MAX_TURN,
      background: true,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  async handleTurn(messages: readonly BusMessage[]): Promise<void> {
    const last = messages[messages.length - 1]!;
    let states = this.states.get(last.partition);
    if (!states) this.states.set(last.partition, (states = new Map()));
    const rows = new Map<string, MarketCandleEntity>();
    const touched = new Set<string>();
    try {
      for (const { value: e } of validMessages('prices', messages, this.logger)) {
        let s = states.get(e.symbol);
        if (!s) states.set(e.symbol, (s = await this.load(e.symbol)));
        touched.add(e.symbol);
        const samples: [keyof PriceSeries, string][] =
          e.type === 'price.index'
            ? [['index', e.indexPrice]]
            : [
                ['mark', e.markPrice],
                ['premium', e.premiumIndex],
              ];
        for (const [series, price] of samples)
          for (const u of s[series].applySample(e.time, new Money(price)))
            rows.set(
              `${e.symbol}/${series}/${u.interval}/${u.candle.openTime}`,
              candleRow(e.symbol, series, u.interval, u.candle),
            );
      }
      const applied = await this.marks.applyWritesOnce(
        {
          consumer: PRICE_CANDLES_CONSUMER,
          topic: last.topic,
          partition: last.partition,
          offset: last.offset,
        },
        new MarketDataWrites().upsertCandles([...rows.values()]).batch,
      );
      if (!applied) for (const symbol of touched) states.delete(symbol);
    } catch (e) {
      for (const symbol of touched) states.delete(symbol);
      throw e;
    }
    await this.subscription?.commit(afterBatch(messages));
  }

  private async load(symbol: string): Promise<PriceSeries> {
    const series = async (name: CandleSeriesName) =>
      new CandleSeries((await this.repo.latestCandles(symbol, name)).flatMap(candleUpdate));
    return { index: await series('index'), mark: await series('mark'), premium: await series('premium') };
  }
}
