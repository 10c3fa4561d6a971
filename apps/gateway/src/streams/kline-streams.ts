import type { Bus } from '@perp/bus';
import type { HotStore } from '@perp/cache';
import { CANDLES_VERSION_KEY, PUBLIC_MARKET_CONSUMER, TOPICS } from '@perp/contracts';
import { bucketOpen, type KlineInterval, type MarketRegistry, nextBucketOpen } from '@perp/domain';
import type { ProcessedOffsetRepository } from '@perp/persistence';
import type { KlineReader } from '../fapi/market/kline-reader';
import { klinePayload } from './market-payloads';
import type { StreamHub } from './stream-hub';

const ENGINE = TOPICS.engineEvents.name;

interface Kline {
  symbol: string;
  interval: KlineInterval;
  continuous: boolean;
}

/**
 * `@kline_<interval>` and `@continuousKline_<interval>`: the candle REST klines serve, pushed
 * when it changed (checked every 250 ms, as Binance's update speed), and once more with `x: true`
 * when its interval is over. "Over" follows the log's time, not this replica's clock: the latest
 * time of the symbol's engine events and marks and of the keeper's clock ticks. The final candle is
 * read once the market-data projection has written every engine event this replica saw of the
 * symbol's partition (its mark in processed_offsets), so it holds the interval's last trade.
 */
export class KlineStreams {
  /** The log's time per symbol (engine events, marks) and of the keeper's clock. */
  private readonly symbolTime = new Map<string, number>();
  private clockTime: number | undefined;
  /** Last engine event offset seen per partition. */
  private readonly engineOffset = new Map<number, bigint>();
  /** Per stream key: the open time of the candle last pushed, its version and its `k`. */
  private readonly shown = new Map<string, { open: number; version: string; k: string }>();

  constructor(
    private readonly hub: StreamHub,
    private readonly markets: MarketRegistry,
    private readonly klines: KlineReader,
    private readonly hot: HotStore,
    private readonly bus: Bus,
    private readonly marks: ProcessedOffsetRepository,
  ) {}

  sawEngine(symbol: string, time: number, partition: number, offset: string): void {
    this.sawSymbol(symbol, time);
    this.engineOffset.set(partition, BigInt(offset));
  }

  sawSymbol(symbol: string, time: number): void {
    if (time > (this.symbolTime.get(symbol) ?? 0)) this.symbolTime.set(symbol, time);
  }

  sawClock(time: number): void {
    if (time > (this.clockTime ?? 0)) this.clockTime = time;
  }

  /** A new subscriber: the current candle is pushed at the next flush. */
  forget(key: string): void {
    const s = this.shown.get(key);
    if (s) s.version = '';
  }

  /** The log's time for `symbol`, undefined before any event. */
  logTime(symbol: string): number | undefined {
    const t = Math.max(this.symbolTime.get(symbol) ?? 0, this.clockTime ?? 0);
    return t > 0 ? t : undefined;
  }

  async flush(subscribed: [string, Kline][]): Promise<void> {
    const now = Date.now();
    for (const [key, s] of subscribed) {
      const m = this.markets.find(s.symbol);
      if (!m) continue;
      const at = this.logTime(m.symbol) ?? now;
      const shown = this.shown.get(key);
      if (shown && at >= nextBucketOpen(s.interval, shown.open)) {
        if (!(await this.projected(m.symbol))) continue; // market-data is behind: next tick
        const [candle] = await this.klines.candles(
          m.symbol,
          'last',
          s.interval,
          { startTime: shown.open, limit: 1 },
          at,
        );
        if (candle?.openTime === shown.open)
          this.hub.publish(key, klinePayload(m, s.interval, candle, now, s.continuous, true));
        this.shown.delete(key);
      }
      await this.pushCurrent(key, s, at, now);
    }
    for (const key of this.shown.keys()) if (!this.hub.has(key)) this.shown.delete(key);
  }

  /** The open candle, when it changed since last pushed (or a new subscriber waits). */
  private async pushCurrent(key: string, s: Kline, at: number, now: number): Promise<void> {
    const m = this.markets.find(s.symbol)!;
    const stored = (await this.hot.get(CANDLES_VERSION_KEY(m.symbol))) ?? '0';
    const version = `${stored}|${bucketOpen(s.interval, at)}`;
    const shown = this.shown.get(key);
    if (shown?.version === version) return;
    const [candle] = (await this.klines.candles(m.symbol, 'last', s.interval, { limit: 1 }, at)).slice(-1);
    if (!candle) return;
    const payload = klinePayload(m, s.interval, candle, now, s.continuous, false);
    const k = JSON.stringify(payload.k);
    // A new version with the same figures is not sent again (a subscriber that waits for the current
    // candle clears the version: it is sent).
    if (shown?.k === k && shown.version !== '') {
      shown.version = version;
      return;
    }
    this.shown.set(key, { open: candle.openTime, version, k });
    this.hub.publish(key, payload);
  }

  /** True once market-data wrote every engine event of `symbol`'s partition this replica saw. */
  private async projected(symbol: string): Promise<boolean> {
    const partition = this.bus.partitionFor(ENGINE, symbol);
    const seen = this.engineOffset.get(partition);
    if (seen === undefined) return true;
    const mark = await this.marks.get(PUBLIC_MARKET_CONSUMER, ENGINE, partition);
    return mark !== undefined && BigInt(mark) >= seen;
  }
}
