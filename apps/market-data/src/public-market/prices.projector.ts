import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  afterBatch,
  Bus,
  type BusMessage,
  Joining,
  RARE_TOPIC_FETCH_WAIT_MS,
  type Subscription,
} from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, markPriceFields, type PriceEvent, TOPICS } from '@perp/contracts';
import { CandleSeries, Money } from '@perp/domain';
import { subscribeAtMark, validMessages } from '@perp/infrastructure';
import {
  type CandleSeriesName,
  type MarketCandleEntity,
  MarketDataRepository,
  MarketDataWrites,
  type MarketPriceEntity,
  ProcessedOffsetRepository,
} from '@perp/persistence';
import { candleRow, candleUpdate } from './symbol-market';

/** The consumer's name in `processed_offsets` (kept from when it wrote only the candles). */
export const PRICES_CONSUMER = 'price-candles';
type PriceSeries = Record<'index' | 'mark' | 'premium', CandleSeries>;
type MarkEvent = Extract<PriceEvent, { type: 'price.mark' }>;
const MAX_TURN = 1000;

/**
 * The prices log's projections: the price series sampled from it (index from `price.index`, mark
 * and premium index from `price.mark`) and each symbol's latest mark, index and last price, the
 * hash readers use (`HOT_KEYS.price`). The same turn shape as the trades: states per partition,
 * the hot store first, then one transaction with the consumer's mark; the latest mark event is
 * kept in Postgres too, and a new owner writes the hash again when the hot store lost it.
 */
@Injectable()
export class PricesProjector implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PRICES_CONSUMER);
  private subscription?: Subscription;
  private readonly joining = new Joining();
  private readonly states = new Map<number, Map<string, PriceSeries>>();

  constructor(
    private readonly bus: Bus,
    private readonly marks: ProcessedOffsetRepository,
    private readonly repo: MarketDataRepository,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  /** Joins beside the app's other groups (each new group waits out the broker's rebalance delay). */
  onModuleInit(): void {
    this.joining.start([
      subscribeAtMark(this.bus, {
        name: PRICES_CONSUMER,
        topics: [TOPICS.prices.name],
        marks: this.marks,
        forget: (p) => this.states.delete(p),
        batchHandler: (ms, member) => this.handleTurn(ms, member),
        maxBatch: MAX_TURN,
        background: true,
        minFetchWaitMs: RARE_TOPIC_FETCH_WAIT_MS,
        restore: (partition) => this.restore(partition),
      }),
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    [this.subscription] = await this.joining.joined();
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  async handleTurn(messages: readonly BusMessage[], member = this.subscription): Promise<void> {
    const last = messages[messages.length - 1]!;
    let states = this.states.get(last.partition);
    if (!states) this.states.set(last.partition, (states = new Map()));
    const rows = new Map<string, MarketCandleEntity>();
    const latest = new Map<string, MarkEvent>();
    const touched = new Set<string>();
    try {
      for (const { value: e } of validMessages('prices', messages, this.logger)) {
        let s = states.get(e.symbol);
        if (!s) states.set(e.symbol, (s = await this.load(e.symbol)));
        touched.add(e.symbol);
        if (e.type === 'price.mark') latest.set(e.symbol, e);
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
      // A repeated turn writes the same latest prices again: harmless.
      await Promise.all(
        [...latest.values()].map((e) => this.hot.hset(HOT_KEYS.price(e.symbol), markPriceFields(e))),
      );
      const writes = new MarketDataWrites()
        .upsertCandles([...rows.values()])
        .savePrices([...latest.values()].map((e) => priceRow(e, last.partition)));
      const applied = await this.marks.applyWritesOnce(
        { consumer: PRICES_CONSUMER, topic: last.topic, partition: last.partition, offset: last.offset },
        writes.batch,
      );
      if (!applied) for (const symbol of touched) states.delete(symbol);
    } catch (e) {
      for (const symbol of touched) states.delete(symbol);
      throw e;
    }
    member?.commitLater(afterBatch(messages));
  }

  /**
   * Writes the price hash of a partition's symbols again where the hot store lost it or holds an
   * older one (an embedded exchange's memory store after a restart, a flushed Redis). Returns the
   * symbols written.
   */
  async restore(partition: number): Promise<string[]> {
    const written: string[] = [];
    for (const row of await this.repo.latestPrices(partition)) {
      const time = await this.hot.hget(HOT_KEYS.price(row.symbol), 'time');
      if (time !== undefined && Number(time) >= row.time) continue;
      await this.hot.hset(HOT_KEYS.price(row.symbol), markPriceFields(row));
      written.push(row.symbol);
    }
    if (written.length)
      this.logger.log(`partition ${partition}: prices of ${written.join(', ')} written again`);
    return written;
  }

  private async load(symbol: string): Promise<PriceSeries> {
    const series = async (name: CandleSeriesName) =>
      new CandleSeries((await this.repo.latestCandles(symbol, name)).flatMap(candleUpdate));
    return { index: await series('index'), mark: await series('mark'), premium: await series('premium') };
  }
}

function priceRow(e: MarkEvent, partition: number): MarketPriceEntity {
  return {
    symbol: e.symbol,
    partition,
    markPrice: e.markPrice,
    indexPrice: e.indexPrice,
    lastPrice: e.lastPrice,
    fundingRate: e.fundingRate,
    nextFundingTime: e.nextFundingTime,
    time: e.time,
  };
}
