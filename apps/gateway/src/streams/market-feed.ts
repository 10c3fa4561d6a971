import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Bus, type BusMessage } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import {
  type ClockTick,
  type EngineEvent,
  type MarkPriceEvent,
  parseMessage,
  readTicker,
  TOPICS,
} from '@perp/contracts';
import {
  DeltaWindow,
  type DepthSpeed,
  type Market,
  MarketRegistry,
  type MarketStream,
  parseStreamName,
  streamKey,
} from '@perp/domain';
import { ProcessedOffsetRepository } from '@perp/persistence';
import { DepthCache } from '../fapi/market/depth-cache';
import { KlineReader } from '../fapi/market/kline-reader';
import { KlineStreams } from './kline-streams';
import { StreamFeeds } from './stream-feeds';
import {
  aggTradePayloads,
  bookTickerPayload,
  diffDepthPayload,
  markPricePayload,
  miniTickerPayload,
  partialDepthPayload,
  tickerPayload,
  tradePayload,
} from './market-payloads';
import { StreamHub } from './stream-hub';

type TradeEvent = Extract<EngineEvent, { type: 'trade' }>;
type DeltaEvent = Extract<EngineEvent, { type: 'book.delta' }>;

const SPEEDS: DepthSpeed[] = [100, 250, 500];
const TICKER_MS = 1000;
const KLINE_MS = 250;

/**
 * This replica's market streams. It reads the engine events and prices topics with a consumer group
 * of its own (every replica sees every event, from the latest on) and fans out from memory:
 * trades, aggregate trades, book tickers and diff depth straight from the events; partial depth,
 * klines and tickers from the projections REST reads (so a stream shows what REST answers), pushed
 * on their update interval when they changed or a new subscriber waits; marks on 1 s / 3 s.
 */
@Injectable()
export class MarketFeed implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MarketFeed');
  private readonly timers: NodeJS.Timeout[] = [];
  /** Diff-depth windows by stream key. */
  private readonly windows = new Map<string, { m: Market; window: DeltaWindow; time: number }>();
  private readonly marks = new Map<string, MarkPriceEvent>();
  /** Projection-backed streams: the version last pushed per key (undefined: push at the next tick). */
  private readonly pushed = new Map<string, string>();
  private readonly partialPu = new Map<string, number>();
  private readonly klineStreams: KlineStreams;

  constructor(
    private readonly bus: Bus,
    private readonly hub: StreamHub,
    private readonly markets: MarketRegistry,
    private readonly depth: DepthCache,
    klines: KlineReader,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    marks: ProcessedOffsetRepository,
    feeds: StreamFeeds,
  ) {
    this.klineStreams = new KlineStreams(hub, markets, klines, hot, bus, marks);
    feeds.on(TOPICS.engineEvents.name, (ms) => this.onEngineEvents(ms));
    feeds.on(TOPICS.prices.name, (ms) => this.onPrices(ms));
    feeds.on(TOPICS.clock.name, (ms) => {
      for (const t of this.events<ClockTick>(ms, 'clock')) this.klineStreams.sawClock(t.time);
    });
    hub.onSubscribe = (key) => {
      this.pushed.delete(key);
      this.klineStreams.forget(key);
    };
  }

  onApplicationBootstrap(): void {
    const every = (ms: number, f: () => unknown) =>
      this.timers.push(
        setInterval(() => void Promise.resolve(f()).catch((e) => this.logger.warn(String(e))), ms).unref(),
      );
    for (const speed of SPEEDS) every(speed, () => this.flushDepth(speed));
    every(1000, () => this.flushMarks(1000));
    every(3000, () => this.flushMarks(3000));
    every(TICKER_MS, () => this.flushTickers());
    every(KLINE_MS, () => this.flushKlines());
  }

  onModuleDestroy(): void {
    for (const t of this.timers) clearInterval(t);
  }

  private events<T>(ms: readonly BusMessage[], topic: 'engineEvents' | 'prices' | 'clock'): T[] {
    const out: T[] = [];
    for (const m of ms) {
      try {
        out.push(parseMessage(topic, m.value, m.inProcess) as T);
      } catch (e) {
        this.logger.warn(`skipped ${m.topic}/${m.partition}@${m.offset}: ${String(e)}`);
      }
    }
    return out;
  }

  private onEngineEvents(ms: readonly BusMessage[]): void {
    const trades = new Map<string, { list: TradeEvent[]; logged: number[] }>();
    for (const msg of ms) {
      const [e] = this.events<EngineEvent>([msg], 'engineEvents');
      if (!e) continue;
      const m = this.markets.find(e.symbol);
      if (!m) continue;
      this.klineStreams.sawEngine(m.symbol, e.time, msg.partition, msg.offset);
      if (e.type === 'trade') {
        if (e.kind === 'ADL') continue; // an ADL close is not a public trade
        const tradeKey = `${m.symbol}@trade`;
        if (this.hub.has(tradeKey)) this.hub.publish(tradeKey, tradePayload(m, e, msg.timestamp));
        const t = trades.get(m.symbol);
        if (t) {
          t.list.push(e);
          t.logged.push(msg.timestamp);
        } else trades.set(m.symbol, { list: [e], logged: [msg.timestamp] });
      } else if (e.type === 'book.top') {
        if (!this.hub.has(`${m.symbol}@bookTicker`) && !this.hub.has('!bookTicker')) continue;
        const payload = bookTickerPayload(m, e, msg.timestamp);
        this.hub.publish(`${m.symbol}@bookTicker`, payload);
        this.hub.publish('!bookTicker', payload);
      } else if (e.type === 'book.delta') {
        this.delta(m, e);
      }
    }
    for (const [symbol, t] of trades) {
      const key = `${symbol}@aggTrade`;
      if (!this.hub.has(key)) continue;
      for (const p of aggTradePayloads(this.markets.find(symbol)!, t.list, t.logged))
        this.hub.publish(key, p);
    }
  }

  private delta(m: Market, e: DeltaEvent): void {
    this.hub.bookSeqs.set(m.symbol, e.seq);
    for (const speed of SPEEDS) {
      const key = `${m.symbol}@depth@${speed}ms`;
      let w = this.windows.get(key);
      if (!w) {
        if (!this.hub.has(key)) continue;
        this.windows.set(key, (w = { m, window: new DeltaWindow(), time: e.time }));
      }
      w.window.add(e);
      w.time = e.time;
    }
  }

  private onPrices(ms: readonly BusMessage[]): void {
    for (const e of this.events<{ type: string }>(ms, 'prices'))
      if (e.type === 'price.mark') {
        const mark = e as MarkPriceEvent;
        this.marks.set(mark.symbol, mark);
        this.klineStreams.sawSymbol(mark.symbol, mark.time);
      }
  }

  /** Streams of `kind` with subscribers, parsed. */
  private subscribed(test: (s: MarketStream) => boolean): [string, MarketStream][] {
    const out: [string, MarketStream][] = [];
    for (const key of this.hub.keys()) {
      const s = parseStreamName(key);
      if (s && test(s)) out.push([key, s]);
    }
    return out;
  }

  private async flushDepth(speed: DepthSpeed): Promise<void> {
    const now = Date.now();
    for (const [key, w] of this.windows) {
      if (!key.endsWith(`@${speed}ms`)) continue;
      const merged = w.window.take();
      if (merged) this.hub.publish(key, diffDepthPayload(w.m, merged, w.time, now));
      else if (!this.hub.has(key)) this.windows.delete(key); // nobody left: a later subscriber starts afresh
    }
    for (const [key, s] of this.subscribed((s) => s.kind === 'depth' && s.speed === speed && !!s.levels)) {
      if (s.kind !== 'depth' || !s.levels) continue;
      const m = this.markets.find(s.symbol);
      if (!m) continue;
      const book = await this.depth.book(m);
      const version = String(book.seq);
      if (this.pushed.get(key) === version) continue;
      this.pushed.set(key, version);
      const pu = this.partialPu.get(key) ?? Math.max(book.seq, 0);
      this.partialPu.set(key, Math.max(book.seq, 0));
      this.hub.publish(key, partialDepthPayload(m, book, s.levels, pu, now));
    }
  }

  private flushMarks(speed: 1000 | 3000): void {
    const now = Date.now();
    const all: unknown[] = [];
    const arrKey = streamKey({ kind: 'allMarkPrice', speed });
    for (const e of this.marks.values()) {
      const key = streamKey({ kind: 'markPrice', symbol: e.symbol, speed });
      const wanted = this.hub.has(key);
      if (!wanted && !this.hub.has(arrKey)) continue;
      const payload = markPricePayload(e, now);
      if (wanted) this.hub.publish(key, payload);
      all.push(payload);
    }
    if (all.length > 0) this.hub.publish(arrKey, all);
  }

  private async flushTickers(): Promise<void> {
    const now = Date.now();
    const arr = { ticker: [] as unknown[], mini: [] as unknown[] };
    const wantAll = this.hub.has('!ticker@arr') || this.hub.has('!miniTicker@arr');
    const symbols = wantAll
      ? this.markets.list().map((m) => m.symbol)
      : this.subscribed((s) => s.kind === 'ticker' || s.kind === 'miniTicker').map(
          ([, s]) => (s as { symbol: string }).symbol,
        );
    for (const symbol of new Set(symbols)) {
      const m = this.markets.find(symbol)!;
      const state = await readTicker(this.hot, symbol);
      const version = `${state?.lastTradeId ?? 0}|${state?.closeTime ?? 0}`;
      for (const [key, render, list, arrKey] of [
        [`${symbol}@ticker`, tickerPayload, arr.ticker, '!ticker@arr'],
        [`${symbol}@miniTicker`, miniTickerPayload, arr.mini, '!miniTicker@arr'],
      ] as const) {
        // The arrays carry only the tickers that changed since the last one sent.
        if (this.hub.has(arrKey) && state && this.pushed.get(`${key}#all`) !== version) {
          this.pushed.set(`${key}#all`, version);
          list.push(render(m, state, now));
        }
        if (!this.hub.has(key) || this.pushed.get(key) === version) continue;
        this.pushed.set(key, version);
        this.hub.publish(key, render(m, state, now));
      }
    }
    if (arr.ticker.length > 0) this.hub.publish('!ticker@arr', arr.ticker);
    if (arr.mini.length > 0) this.hub.publish('!miniTicker@arr', arr.mini);
  }

  private async flushKlines(): Promise<void> {
    const klines = this.subscribed((s) => s.kind === 'kline');
    await this.klineStreams.flush(
      klines.map(([key, s]) => [key, s as Extract<MarketStream, { kind: 'kline' }>]),
    );
  }
}
