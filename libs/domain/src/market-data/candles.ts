import { Money } from '../money/money';
import { bucketClose, bucketOpen, KLINE_INTERVALS, type KlineInterval } from './kline-intervals';

/** One kline: a bucket's OHLC, volumes and trade count (as Binance's kline fields). */
export interface Candle {
  openTime: number;
  closeTime: number;
  open: Money;
  high: Money;
  low: Money;
  close: Money;
  /** Base volume. */
  volume: Money;
  /** Σ price × qty. */
  quoteVolume: Money;
  /** Trades, or samples for a price series. */
  count: number;
  takerBuyVolume: Money;
  takerBuyQuoteVolume: Money;
}

/** An order's side; a trade's side is its taker's. */
export type TradeSide = 'BUY' | 'SELL';

/** A trade as klines see it: the taker's side decides the taker-buy volumes. */
export interface CandleTrade {
  time: number;
  price: Money;
  qty: Money;
  takerSide: TradeSide;
}

const ZERO = new Money(0);

/** A candle of the bucket holding `time` with one price and nothing else: OHLC = price. */
export function flatCandle(interval: KlineInterval, time: number, price: Money): Candle {
  const openTime = bucketOpen(interval, time);
  return {
    openTime,
    closeTime: bucketClose(interval, openTime),
    open: price,
    high: price,
    low: price,
    close: price,
    volume: ZERO,
    quoteVolume: ZERO,
    count: 0,
    takerBuyVolume: ZERO,
    takerBuyQuoteVolume: ZERO,
  };
}

/**
 * The candle of `time`'s bucket after one more price: a new candle when `candle` is undefined, of
 * an earlier bucket or flat (count 0), the same object when `candle` is of a later bucket (a late input cannot change
 * it; to fold it into its own bucket, pass that bucket's stored candle instead).
 */
function withPrice(candle: Candle | undefined, interval: KlineInterval, time: number, price: Money) {
  if (candle && time > candle.closeTime) candle = undefined;
  if (candle && time < candle.openTime) return { candle, late: true };
  // A flat candle (no input yet, e.g. a stored gap filler) opens at its first real input.
  if (!candle || candle.count === 0) return { candle: flatCandle(interval, time, price), late: false };
  return {
    candle: {
      ...candle,
      high: price.gt(candle.high) ? price : candle.high,
      low: price.lt(candle.low) ? price : candle.low,
      close: price,
    },
    late: false,
  };
}

/**
 * Trades of one minute, folded: what they do to any candle is what applying them one by one does,
 * since every interval's buckets open on a minute (so they fall in the same bucket of each).
 */
type TradeRun = Omit<Candle, 'openTime' | 'closeTime'> & {
  /** The first trade's time: it picks the bucket. */
  time: number;
};

function runOf(trade: CandleTrade, quote: Money): TradeRun {
  const buy = trade.takerSide === 'BUY';
  return {
    time: trade.time,
    open: trade.price,
    high: trade.price,
    low: trade.price,
    close: trade.price,
    volume: trade.qty,
    quoteVolume: quote,
    count: 1,
    takerBuyVolume: buy ? trade.qty : ZERO,
    takerBuyQuoteVolume: buy ? quote : ZERO,
  };
}

/** `run` with one more trade of its minute (updated in place: a run is never shared). */
function extendRun(run: TradeRun, trade: CandleTrade, quote: Money): void {
  if (trade.price.gt(run.high)) run.high = trade.price;
  if (trade.price.lt(run.low)) run.low = trade.price;
  run.close = trade.price;
  run.volume = run.volume.plus(trade.qty);
  run.quoteVolume = run.quoteVolume.plus(quote);
  run.count++;
  if (trade.takerSide === 'BUY') {
    run.takerBuyVolume = run.takerBuyVolume.plus(trade.qty);
    run.takerBuyQuoteVolume = run.takerBuyQuoteVolume.plus(quote);
  }
}

/** `candle` after a run of trades, as withPrice and the volumes would take them one at a time. */
function applyRun(candle: Candle | undefined, interval: KlineInterval, run: TradeRun): Candle {
  if (candle && run.time > candle.closeTime) candle = undefined;
  if (candle && run.time < candle.openTime) return candle; // an earlier bucket's trades: see applyTrade
  // A flat candle (no input yet, e.g. a stored gap filler) opens at its first real input.
  if (!candle || candle.count === 0) {
    const openTime = bucketOpen(interval, run.time);
    return {
      openTime,
      closeTime: bucketClose(interval, openTime),
      open: run.open,
      high: run.high,
      low: run.low,
      close: run.close,
      volume: run.volume,
      quoteVolume: run.quoteVolume,
      count: run.count,
      takerBuyVolume: run.takerBuyVolume,
      takerBuyQuoteVolume: run.takerBuyQuoteVolume,
    };
  }
  return {
    openTime: candle.openTime,
    closeTime: candle.closeTime,
    open: candle.open,
    high: run.high.gt(candle.high) ? run.high : candle.high,
    low: run.low.lt(candle.low) ? run.low : candle.low,
    close: run.close,
    volume: candle.volume.plus(run.volume),
    quoteVolume: candle.quoteVolume.plus(run.quoteVolume),
    count: candle.count + run.count,
    takerBuyVolume: candle.takerBuyVolume.plus(run.takerBuyVolume),
    takerBuyQuoteVolume: candle.takerBuyQuoteVolume.plus(run.takerBuyQuoteVolume),
  };
}

/**
 * `candle` after one trade. Inputs come in the symbol's log order (time never goes back), so the
 * trade is the candle's close. Returns a new object, or `candle` itself when the trade belongs to an
 * earlier bucket than `candle`'s.
 */
export function applyTrade(
  candle: Candle | undefined,
  interval: KlineInterval,
  trade: CandleTrade,
  /** `trade.price × trade.qty`, when the caller has it already. */
  quote: Money = trade.price.times(trade.qty),
): Candle {
  return applyRun(candle, interval, runOf(trade, quote));
}

/**
 * `candle` after one sample of a price series (mark, index, premium): OHLC of the samples,
 * count = samples, volumes 0. Same ordering rules as applyTrade.
 */
export function applySample(
  candle: Candle | undefined,
  interval: KlineInterval,
  time: number,
  price: Money,
): Candle {
  const { candle: c, late } = withPrice(candle, interval, time, price);
  return late ? c : { ...c, count: c.count + 1 };
}

/** A candle that changed, with its interval (what a projector writes). */
export interface CandleUpdate {
  interval: KlineInterval;
  candle: Candle;
}

/**
 * The current candle of each of the 15 intervals for one symbol and one series (trades, or one
 * price series). Each input returns exactly the candles it changed. An input older than an
 * interval's current candle changes nothing there (see applyTrade).
 */
export class CandleSeries {
  private readonly current = new Map<KlineInterval, Candle>();

  /** Starts from the latest stored candle of each interval (any subset, e.g. after a restart). */
  constructor(latest: Iterable<CandleUpdate> = []) {
    for (const { interval, candle } of latest) this.current.set(interval, candle);
  }

  applyTrade(trade: CandleTrade): CandleUpdate[] {
    return this.applyTrades([trade]);
  }

  /**
   * Trades in log order, each minute's folded first and applied once per interval (a busy turn's
   * trades cost one candle step each, not fifteen). Returns every candle that changed, a bucket
   * that closed during the trades included, in order; a later update of a bucket supersedes an
   * earlier one.
   */
  applyTrades(trades: readonly CandleTrade[]): CandleUpdate[] {
    const changed: CandleUpdate[] = [];
    let run: TradeRun | undefined;
    let minute = 0;
    for (const trade of trades) {
      const quote = trade.price.times(trade.qty);
      const at = bucketOpen('1m', trade.time);
      if (run && at === minute) {
        extendRun(run, trade, quote);
        continue;
      }
      if (run) this.applyRun(run, changed);
      run = runOf(trade, quote);
      minute = at;
    }
    if (run) this.applyRun(run, changed);
    return changed;
  }

  private applyRun(run: TradeRun, changed: CandleUpdate[]): void {
    for (const u of this.each((interval, c) => applyRun(c, interval, run))) changed.push(u);
  }

  applySample(time: number, price: Money): CandleUpdate[] {
    return this.each((interval, c) => applySample(c, interval, time, price));
  }

  /** The current candle of `interval`, if any input reached it. */
  candle(interval: KlineInterval): Candle | undefined {
    return this.current.get(interval);
  }

  private each(step: (interval: KlineInterval, c: Candle | undefined) => Candle): CandleUpdate[] {
    const changed: CandleUpdate[] = [];
    for (const interval of KLINE_INTERVALS) {
      const before = this.current.get(interval);
      const after = step(interval, before);
      if (after === before) continue;
      this.current.set(interval, after);
      changed.push({ interval, candle: after });
    }
    return changed;
  }
}

/** Decimals to render with; an absent one renders the exact value. */
export interface KlineFormat {
  priceDecimals?: number;
  qtyDecimals?: number;
  quoteDecimals?: number;
}

export type KlineRow = [
  openTime: number,
  open: string,
  high: string,
  low: string,
  close: string,
  volume: string,
  closeTime: number,
  quoteVolume: string,
  count: number,
  takerBuyVolume: string,
  takerBuyQuoteVolume: string,
  ignore: '0',
];

const fixed = (v: Money, dp: number | undefined) => (dp === undefined ? v.toFixed() : v.toFixed(dp));

/** Binance's kline wire row: 12 positions, times and count as integers, decimals as strings. */
export function klineRow(c: Candle, format: KlineFormat = {}): KlineRow {
  const { priceDecimals: p, qtyDecimals: q, quoteDecimals: qq } = format;
  return [
    c.openTime,
    fixed(c.open, p),
    fixed(c.high, p),
    fixed(c.low, p),
    fixed(c.close, p),
    fixed(c.volume, q),
    c.closeTime,
    fixed(c.quoteVolume, qq),
    c.count,
    fixed(c.takerBuyVolume, q),
    fixed(c.takerBuyQuoteVolume, qq),
    '0',
  ];
}
