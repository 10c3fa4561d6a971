import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { afterBatch, Bus, type BusMessage, Joining, type Subscription } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import {
  type EngineEvent,
  MessageValidationError,
  parseMessage,
  PUBLIC_MARKET_CONSUMER,
  TICKER_KEY,
  TOPICS,
} from '@perp/contracts';
import { subscribeAtMark } from '@perp/infrastructure';
import { MarketDataRepository, MarketDataWrites, ProcessedOffsetRepository } from '@perp/persistence';
import { APP_CONFIG, type AppConfig, Metrics } from '@perp/runtime';
import { restoreHot } from './market-restore';
import { MarketTurn, tickerState } from './market-turn';
import { SymbolMarket } from './symbol-market';

export { PUBLIC_MARKET_CONSUMER };
const MAX_TURN = 1000;
/** How often the tickers of quiet symbols are rewritten as their 24 h window moves on. */
const TICKER_ROLL_MS = 30_000;

/**
 * Public market data from the engine's events: trades (ids = the engine's per-symbol sequence),
 * aggregated trades, candles of every interval, the rolling 24 h ticker, the L2 book and its top,
 * open interest, the futures-data statistics and the ADL quantiles. One turn per batch of a
 * partition: states apply the events, the hot store is written, then one Postgres statement that
 * also advances the consumer's mark; a new owner resumes after that mark, and first writes again
 * the hot-store forms of its symbols that the hot store lost (see `restoreHot`). States are per
 * partition and dropped when it is revoked or a turn fails, then loaded again from what was written.
 */
@Injectable()
export class PublicMarketProjector implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PUBLIC_MARKET_CONSUMER);
  private subscription?: Subscription;
  private readonly joining = new Joining();
  private readonly states = new Map<number, Map<string, SymbolMarket>>();
  private roll?: NodeJS.Timeout;
  /** Per partition, the clock minute ticker minutes were last pruned in (a delete a minute is enough). */
  private readonly pruned = new Map<number, number>();

  constructor(
    private readonly bus: Bus,
    private readonly marks: ProcessedOffsetRepository,
    private readonly repo: MarketDataRepository,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /** Joins beside the app's other groups (each new group waits out the broker's rebalance delay). */
  onModuleInit(): void {
    this.joining.start([
      subscribeAtMark(this.bus, {
        name: PUBLIC_MARKET_CONSUMER,
        topics: [TOPICS.engineEvents.name],
        marks: this.marks,
        forget: (p) => this.states.delete(p),
        batchHandler: (ms, member) => this.handleTurn(ms, member),
        maxBatch: MAX_TURN,
        background: true,
        // The turns still load what they touch; the rest is written again at the next assignment.
        restore: (partition) => this.restore(partition),
      }),
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    [this.subscription] = await this.joining.joined();
    this.roll = setInterval(
      () => void this.rollTickers().catch((e) => this.logger.warn(String(e))),
      TICKER_ROLL_MS,
    );
    this.roll.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.roll);
    await this.subscription?.close();
  }

  async handleTurn(messages: readonly BusMessage[], member = this.subscription): Promise<void> {
    const started = Date.now();
    const last = messages[messages.length - 1]!;
    const events: EngineEvent[] = [];
    for (const m of messages) {
      try {
        const e = parseMessage('engineEvents', m.value, m.inProcess);
        if (e.type === 'trade' || e.type === 'book.delta' || e.type === 'adl.quantiles') events.push(e);
      } catch (e) {
        if (!(e instanceof MessageValidationError)) throw e;
        this.logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
      }
    }
    let states = this.states.get(last.partition);
    if (!states) this.states.set(last.partition, (states = new Map()));
    const turn = new MarketTurn(last.partition, this.pruneDue(last.partition));
    try {
      for (const e of events) {
        let s = states.get(e.symbol);
        if (!s) states.set(e.symbol, (s = await SymbolMarket.load(e.symbol, this.repo)));
        turn.apply(s, e);
      }
      await turn.writeHot(this.hot);
      const writes = new MarketDataWrites();
      turn.writeDb(writes);
      const applied = await this.marks.applyWritesOnce(
        {
          consumer: PUBLIC_MARKET_CONSUMER,
          topic: last.topic,
          partition: last.partition,
          offset: last.offset,
        },
        writes.batch,
      );
      // Another member applied this turn (a rebalance in flight): what we hold is not what was written.
      if (!applied) for (const symbol of turn.symbols) states.delete(symbol);
      else {
        const versions = turn.candleVersions();
        if (versions.length) await this.hot.setMany(versions);
      }
    } catch (e) {
      for (const symbol of turn.symbols) states.delete(symbol);
      throw e;
    }
    this.metrics?.marketDataLag.observe(Math.max(0, Date.now() - messages[0]!.timestamp) / 1000);
    member?.commitLater(afterBatch(messages));
    // A partial turn: let the next one gather events for MARKET_DATA_BATCH_MS in all (fewer, larger
    // transactions). The turn itself counts: events arrived while it ran, and waiting the whole
    // window again after a slow turn would only add to the lag.
    const rest = this.config.MARKET_DATA_BATCH_MS - (Date.now() - started);
    if (messages.length < MAX_TURN && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }

  /**
   * Loads every symbol a partition's turns wrote (its states for the next turns) and writes again
   * what the hot store lost of them. Returns the symbols whose forms were written.
   */
  async restore(partition: number, now = Date.now()): Promise<string[]> {
    const states = new Map<string, SymbolMarket>();
    const written: string[] = [];
    for (const symbol of await this.repo.bookSymbols(partition)) {
      const s = await SymbolMarket.load(symbol, this.repo);
      states.set(symbol, s);
      if ((await restoreHot(this.hot, s, now)).length) written.push(symbol);
    }
    this.states.set(partition, states);
    if (written.length)
      this.logger.log(`partition ${partition}: hot-store forms of ${written.join(', ')} written again`);
    return written;
  }

  private pruneDue(partition: number): boolean {
    const minute = Math.floor(Date.now() / 60_000);
    if (this.pruned.get(partition) === minute) return false;
    this.pruned.set(partition, minute);
    return true;
  }

  /** Rewrites the ticker of every symbol held that traded in the last day, at the clock's time. */
  private async rollTickers(now = Date.now()): Promise<void> {
    const entries = [];
    for (const states of this.states.values())
      for (const s of states.values())
        if (s.lastTrade && s.lastTrade.time > now - 25 * 3600_000)
          entries.push({ key: TICKER_KEY(s.symbol), value: JSON.stringify(tickerState(s, now)) });
    if (entries.length) await this.hot.setMany(entries);
  }
}
