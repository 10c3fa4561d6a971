import {
  type Candle,
  CandleSeries,
  DepthBook,
  type KlineInterval,
  Money,
  type OpenAggTrade,
  parseKlineInterval,
  Rolling24h,
  SymbolPositions,
} from '@perp/domain';
import type { MarketCandleEntity, MarketDataRepository } from '@perp/persistence';
import type { AdlList } from '../adl/adl-quantiles';

const DAY = 24 * 3600_000;
const m = (v: string) => new Money(v);

/** The last trade a symbol's projection applied: later ones only are new (ids only grow). */
export interface LastTrade {
  id: number;
  price: Money;
  time: number;
}

/**
 * Everything market data keeps in memory for one symbol, as of the last turn written: the L2 book
 * (and the time of its last change), the current candle of every interval, the open aggregate
 * trade, the rolling 24 h minutes, every account's position and the engine's ADL ranking. It is a
 * cache of what Postgres holds (see `load`), so a turn that fails drops it and the next turn loads
 * it again; the hot store's forms are rebuilt from it (`restoreHot`).
 */
export class SymbolMarket {
  constructor(
    readonly symbol: string,
    readonly depth: DepthBook,
    readonly candles: CandleSeries,
    public agg: OpenAggTrade | undefined,
    readonly rolling: Rolling24h,
    readonly positions: SymbolPositions,
    public lastTrade: LastTrade | undefined,
    public bookTime = 0,
    public adl: AdlList | undefined = undefined,
    /** The last trade moved into `positions` (an ADL close is not a public trade: not `lastTrade`). */
    public tradeSeq = lastTrade?.id ?? 0,
    public tradeTime = lastTrade?.time ?? 0,
  ) {}

  static empty(symbol: string): SymbolMarket {
    return new SymbolMarket(
      symbol,
      new DepthBook(),
      new CandleSeries(),
      undefined,
      new Rolling24h(),
      new SymbolPositions(),
      undefined,
    );
  }

  /** The state a previous owner left in Postgres. */
  static async load(symbol: string, repo: MarketDataRepository): Promise<SymbolMarket> {
    const [depth, candles, agg, last, positions, adl] = await Promise.all([
      repo.book(symbol),
      repo.latestCandles(symbol, 'last'),
      repo.lastAggTrade(symbol),
      repo.lastTrade(symbol),
      repo.positions(symbol),
      repo.adlQuantiles(symbol),
    ]);
    const minutes = last ? await repo.tickerMinutesSince(symbol, last.time - DAY) : [];
    // The book row's trade is the later one when an ADL close came after the last public trade.
    const moved =
      depth && depth.tradeSeq >= (last?.id ?? 0)
        ? { seq: depth.tradeSeq, time: depth.tradeTime }
        : { seq: last?.id ?? 0, time: last?.time ?? 0 };
    return new SymbolMarket(
      symbol,
      depth
        ? DepthBook.fromJSON({ lastUpdateId: depth.seq, bids: depth.bids, asks: depth.asks })
        : new DepthBook(),
      new CandleSeries(candles.flatMap(candleUpdate)),
      agg
        ? {
            a: agg.id,
            p: m(agg.price),
            q: m(agg.qty),
            f: agg.firstId,
            l: agg.lastId,
            T: agg.time,
            m: agg.buyerMaker,
            takerOrderId: agg.takerOrderId,
          }
        : undefined,
      Rolling24h.fromMinutes(
        minutes.map((x) => ({
          openTime: x.openTime,
          open: m(x.open),
          high: m(x.high),
          low: m(x.low),
          close: m(x.close),
          volume: m(x.volume),
          quoteVolume: m(x.quoteVolume),
          count: x.count,
          firstTime: x.firstTime,
          lastTime: x.lastTime,
          lastQty: m(x.lastQty),
        })),
      ),
      new SymbolPositions(positions.map((p) => [p.user, m(p.size)])),
      last ? { id: last.id, price: m(last.price), time: last.time } : undefined,
      depth?.time ?? 0,
      adl
        ? {
            seq: adl.seq,
            time: adl.time,
            long: JSON.parse(adl.long) as AdlList['long'],
            short: JSON.parse(adl.short) as AdlList['short'],
          }
        : undefined,
      moved.seq,
      moved.time,
    );
  }
}

export function candleUpdate(row: MarketCandleEntity): { interval: KlineInterval; candle: Candle }[] {
  const interval = parseKlineInterval(row.interval);
  return interval ? [{ interval, candle: toCandle(row) }] : [];
}

/** A stored candle back in Money. */
export function toCandle(row: MarketCandleEntity): Candle {
  return {
    openTime: row.openTime,
    closeTime: row.closeTime,
    open: m(row.open),
    high: m(row.high),
    low: m(row.low),
    close: m(row.close),
    volume: m(row.volume),
    quoteVolume: m(row.quoteVolume),
    count: row.count,
    takerBuyVolume: m(row.takerBuyVolume),
    takerBuyQuoteVolume: m(row.takerBuyQuoteVolume),
  };
}

/** A candle as its row (exact decimal strings). */
export function candleRow(
  symbol: string,
  series: MarketCandleEntity['series'],
  interval: KlineInterval,
  c: Candle,
): MarketCandleEntity {
  return {
    symbol,
    series,
    interval,
    openTime: c.openTime,
    closeTime: c.closeTime,
    open: c.open.toFixed(),
    high: c.high.toFixed(),
    low: c.low.toFixed(),
    close: c.close.toFixed(),
    volume: c.volume.toFixed(),
    quoteVolume: c.quoteVolume.toFixed(),
    count: c.count,
    takerBuyVolume: c.takerBuyVolume.toFixed(),
    takerBuyQuoteVolume: c.takerBuyQuoteVolume.toFixed(),
  };
}
