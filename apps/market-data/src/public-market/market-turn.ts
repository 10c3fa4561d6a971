import type { HotEntry, HotStore } from '@perp/cache';
import {
  ADL_KEY,
  BOOK_TOP_KEY,
  CANDLES_VERSION_KEY,
  DEPTH_FIELDS,
  DEPTH_KEY,
  type EngineEvent,
  OPEN_INTEREST_KEY,
  TICKER_KEY,
  type TickerState,
} from '@perp/contracts';
import {
  bucketOpen,
  type CandleTrade,
  type CandleUpdate,
  globalAccountRatio,
  Money,
  nextAggTrade,
  STATS_PERIODS,
  topTraderAccountRatio,
  topTraderPositionRatio,
} from '@perp/domain';
import type {
  MarketAdlQuantilesEntity,
  MarketAggTradeEntity,
  MarketBookLevelEntity,
  MarketCandleEntity,
  MarketDataWrites,
  MarketPositionEntity,
  MarketStatisticEntity,
  MarketTickerMinuteEntity,
  MarketTradeEntity,
} from '@perp/persistence';
import { adlQuantilesHash } from '../adl/adl-quantiles';
import { bookTopFields } from '../book-top/book-top';
import { openInterestFields } from '../open-interest/open-interest';
import { candleRow, type SymbolMarket } from './symbol-market';

type TradeEvent = Extract<EngineEvent, { type: 'trade' }>;
type DeltaEvent = Extract<EngineEvent, { type: 'book.delta' }>;
type AdlEvent = Extract<EngineEvent, { type: 'adl.quantiles' }>;

const DAY = 24 * 3600_000;
/** Ticker minutes are kept a little longer than the window they rebuild. */
const MINUTES_KEPT = DAY + 3600_000;

/** The levels a turn changed in a symbol's book, by hot-store field (`b:<price>`, `a:<price>`). */
type DepthWrite = Map<string, MarketBookLevelEntity>;

/**
 * What one turn of engine events changes, gathered while the symbols' states apply the events, then
 * written in two steps: the hot store first (its forms are overwritten or carry the engine's
 * sequence, so a repeated turn is harmless there), then one Postgres statement.
 */
export class MarketTurn {
  private readonly trades: MarketTradeEntity[] = [];
  private readonly aggs = new Map<string, MarketAggTradeEntity>();
  private readonly candles = new Map<string, MarketCandleEntity>();
  /** The turn's trades per symbol, for its candles: applied together as the turn is written. */
  private readonly candleTrades = new Map<SymbolMarket, CandleTrade[]>();
  private readonly minutes = new Map<string, MarketTickerMinuteEntity>();
  private readonly positions = new Map<string, MarketPositionEntity>();
  private readonly statistics: MarketStatisticEntity[] = [];
  private readonly depth = new Map<string, DepthWrite>();
  private readonly books = new Map<string, SymbolMarket>();
  private readonly traded = new Map<string, SymbolMarket>();
  /** Symbols whose positions moved (open interest). */
  private readonly moved = new Map<string, SymbolMarket>();
  private readonly ranked = new Map<string, SymbolMarket>();
  private lastTime = 0;

  /**
   * `partition`: the engine-events partition the turn's events came from (a new owner finds its
   * symbols by it); `prune`: also delete ticker minutes that left every window (not every turn).
   */
  constructor(
    private readonly partition: number,
    private readonly prune = true,
  ) {}

  apply(s: SymbolMarket, event: EngineEvent): void {
    if (event.type === 'trade') this.trade(s, event);
    else if (event.type === 'book.delta') this.delta(s, event);
    else if (event.type === 'adl.quantiles') this.rank(s, event);
  }

  private rank(s: SymbolMarket, e: AdlEvent): void {
    if (s.adl && e.seq <= s.adl.seq) return; // older or replayed
    s.adl = { seq: e.seq, time: e.time, long: e.long, short: e.short };
    this.ranked.set(s.symbol, s);
  }

  private trade(s: SymbolMarket, e: TradeEvent): void {
    if (e.seq <= s.tradeSeq) return; // applied already (a replay)
    s.tradeSeq = e.seq;
    s.tradeTime = e.time;
    const price = new Money(e.price);
    const qty = new Money(e.qty);
    // An ADL close is not a public trade (no trades, aggTrades, klines or ticker): positions only.
    if (e.kind === 'ADL') return this.movePositions(s, e, qty);
    this.trades.push({
      symbol: s.symbol,
      id: e.seq,
      tradeId: e.tradeId,
      price: e.price,
      qty: e.qty,
      quoteQty: price.times(qty).toFixed(),
      takerSide: e.taker.side,
      takerOrderId: e.taker.orderId,
      time: e.time,
    });
    s.lastTrade = { id: e.seq, price, time: e.time };
    s.agg = nextAggTrade(s.agg, {
      id: e.seq,
      time: e.time,
      price,
      qty,
      takerOrderId: e.taker.orderId,
      takerSide: e.taker.side,
    });
    const a = s.agg;
    this.aggs.set(`${s.symbol}/${a.a}`, {
      symbol: s.symbol,
      id: a.a,
      price: a.p.toFixed(),
      qty: a.q.toFixed(),
      firstId: a.f,
      lastId: a.l,
      time: a.T,
      buyerMaker: a.m,
      takerOrderId: a.takerOrderId,
    });
    let pending = this.candleTrades.get(s);
    if (!pending) this.candleTrades.set(s, (pending = []));
    pending.push({ time: e.time, price, qty, takerSide: e.taker.side });
    s.rolling.record(e.time, price, qty);
    const minute = s.rolling.minuteAt(e.time);
    if (minute)
      this.minutes.set(`${s.symbol}/${minute.openTime}`, {
        symbol: s.symbol,
        openTime: minute.openTime,
        open: minute.open.toFixed(),
        high: minute.high.toFixed(),
        low: minute.low.toFixed(),
        close: minute.close.toFixed(),
        volume: minute.volume.toFixed(),
        quoteVolume: minute.quoteVolume.toFixed(),
        count: minute.count,
        firstTime: minute.firstTime,
        lastTime: minute.lastTime,
        lastQty: minute.lastQty.toFixed(),
      });
    this.movePositions(s, e, qty);
    this.traded.set(s.symbol, s);
    this.lastTime = Math.max(this.lastTime, e.time);
  }

  private movePositions(s: SymbolMarket, e: TradeEvent, qty: Money): void {
    for (const party of [e.maker, e.taker]) {
      const size = s.positions.applyFill(party.user, party.side, qty);
      this.positions.set(`${s.symbol}/${party.user}`, {
        symbol: s.symbol,
        user: party.user,
        size: size.toFixed(),
      });
    }
    this.moved.set(s.symbol, s);
  }

  private delta(s: SymbolMarket, e: DeltaEvent): void {
    if (!s.depth.apply({ seq: e.seq, bids: e.bids, asks: e.asks })) return;
    s.bookTime = e.time;
    let w = this.depth.get(s.symbol);
    if (!w) this.depth.set(s.symbol, (w = new Map()));
    for (const [price, qty] of e.bids)
      w.set(DEPTH_FIELDS.bid + price, { symbol: s.symbol, side: 'BID', price, qty });
    for (const [price, qty] of e.asks)
      w.set(DEPTH_FIELDS.ask + price, { symbol: s.symbol, side: 'ASK', price, qty });
    this.books.set(s.symbol, s);
  }

  /** Symbols whose state this turn changed. */
  get symbols(): string[] {
    return [
      ...new Set([...this.traded.keys(), ...this.books.keys(), ...this.moved.keys(), ...this.ranked.keys()]),
    ];
  }

  /** The futures-data statistics of every traded symbol, as they stand after the turn. */
  private collectStatistics(): void {
    for (const s of this.traded.values()) {
      const last = s.lastTrade!;
      let oi = new Money(0);
      for (const size of s.positions.positions.values()) if (size.isPositive()) oi = oi.plus(size);
      const all = globalAccountRatio(s.positions.positions);
      const top = topTraderAccountRatio(s.positions.positions);
      const topPositions = topTraderPositionRatio(s.positions.positions);
      for (const period of STATS_PERIODS)
        this.statistics.push({
          symbol: s.symbol,
          period,
          time: bucketOpen(period, last.time),
          openInterest: oi.toFixed(),
          openInterestValue: oi.times(last.price).toFixed(),
          longAccounts: all.longAccount.toFixed(),
          shortAccounts: all.shortAccount.toFixed(),
          topLongAccounts: top.longAccount.toFixed(),
          topShortAccounts: top.shortAccount.toFixed(),
          topLongPositions: topPositions.longPosition.toFixed(),
          topShortPositions: topPositions.shortPosition.toFixed(),
        });
    }
  }

  async writeHot(hot: HotStore): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const [symbol, w] of this.depth) {
      const s = this.books.get(symbol)!;
      const set: Record<string, string> = {};
      const emptied: string[] = [];
      for (const [field, level] of w)
        if (new Money(level.qty).isZero()) emptied.push(field);
        else set[field] = level.qty;
      set[DEPTH_FIELDS.seq] = String(s.depth.lastUpdateId);
      set[DEPTH_FIELDS.time] = String(s.bookTime);
      writes.push(hot.hupdate(DEPTH_KEY(symbol), set, emptied));
      writes.push(hot.hset(BOOK_TOP_KEY(symbol), bookTopFields(s.depth, s.bookTime)));
    }
    for (const [symbol, s] of this.moved)
      writes.push(
        hot.hset(OPEN_INTEREST_KEY(symbol), openInterestFields(s.positions.positions, s.tradeTime)),
      );
    for (const [symbol, s] of this.ranked)
      writes.push(hot.hupdate(ADL_KEY(symbol), adlQuantilesHash(s.adl!), [], { replace: true }));
    const tickers = [...this.traded.values()].map((s) => ({
      key: TICKER_KEY(s.symbol),
      value: JSON.stringify(tickerState(s, s.lastTrade!.time)),
    }));
    if (tickers.length) writes.push(hot.setMany(tickers));
    await Promise.all(writes);
  }

  /** The candles' versions to write once the turn's statement is in: each traded symbol's last trade. */
  candleVersions(): HotEntry[] {
    return [...this.traded.values()].map((s) => ({
      key: CANDLES_VERSION_KEY(s.symbol),
      value: String(s.lastTrade!.id),
    }));
  }

  /** Each traded symbol's candles after the turn's trades, one row per bucket they changed. */
  private applyCandleTrades(): void {
    for (const [s, trades] of this.candleTrades) {
      const latest = new Map<string, CandleUpdate>();
      for (const u of s.candles.applyTrades(trades)) latest.set(`${u.interval}/${u.candle.openTime}`, u);
      for (const [key, u] of latest)
        this.candles.set(`${s.symbol}/${key}`, candleRow(s.symbol, 'last', u.interval, u.candle));
    }
    this.candleTrades.clear();
  }

  /** The turn's Postgres writes, gathered for one statement. */
  writeDb(writes: MarketDataWrites): void {
    this.applyCandleTrades();
    this.collectStatistics();
    writes
      .insertTrades(this.trades)
      .upsertAggTrades([...this.aggs.values()])
      .upsertCandles([...this.candles.values()])
      .saveTickerMinutes(
        [...this.minutes.values()],
        this.prune && this.minutes.size ? this.lastTime - MINUTES_KEPT : undefined,
      )
      .savePositions([...this.positions.values()])
      .upsertStatistics(this.statistics)
      .saveBooks(
        [...new Set([...this.books.values(), ...this.moved.values()])].map((s) => ({
          symbol: s.symbol,
          partition: this.partition,
          seq: s.depth.lastUpdateId,
          time: s.bookTime,
          tradeSeq: s.tradeSeq,
          tradeTime: s.tradeTime,
        })),
      )
      .saveBookLevels([...this.depth.values()].flatMap((w) => [...w.values()]))
      .saveAdlQuantiles([...this.ranked.values()].map((s) => adlRow(s.symbol, s.adl!)));
  }
}

function adlRow(symbol: string, adl: NonNullable<SymbolMarket['adl']>): MarketAdlQuantilesEntity {
  return {
    symbol,
    seq: adl.seq,
    time: adl.time,
    long: JSON.stringify(adl.long),
    short: JSON.stringify(adl.short),
  };
}

/** The rolling ticker of a symbol at `now` (its last trade time after a turn, the clock as it rolls). */
export function tickerState(s: SymbolMarket, now: number): TickerState {
  const t = s.rolling.stats(now);
  return {
    openTime: t.openTime,
    closeTime: t.closeTime,
    open: t.open.toFixed(),
    high: t.high.toFixed(),
    low: t.low.toFixed(),
    last: t.last.toFixed(),
    lastQty: t.lastQty.toFixed(),
    volume: t.volume.toFixed(),
    quoteVolume: t.quoteVolume.toFixed(),
    count: t.count,
    firstTime: t.firstTime,
    lastTime: t.lastTime,
    lastTradeId: s.lastTrade?.id ?? 0,
    lastPrice: s.lastTrade?.price.toFixed() ?? '0',
  };
}
