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
 * `candle` after one trade. Inputs come in the symbol's log order (time never goes back), so the
 * trade is the candle's close. Returns a new object, or `candle` itself when the trade belongs to an
 * earlier bucket than `candle`'s.
 */
export function applyTrade(
  candle: Candle | undefined,
  interval: KlineInterval,
  trade: CandleTrade,
  /** `trade.price × trade.qty`, when the caller has it already (one trade, fifteen intervals). */
  quote: Money = trade.price.times(trade.qty),
): Candle {
  const { candle: c, late } = withPrice(candle, interval, trade.time, trade.price);
  if (late) return c;
  const buy = trade.takerSide === 'BUY';
  return {
    ...c,
    volume: c.volume.plus(trade.qty),
    quoteVolume: c.quoteVolume.plus(quote),
    count: c.count + 1,
    takerBuyVolume: buy ? c.takerBuyVolume.plus(trade.qty) : c.takerBuyVolume,
    takerBuyQuoteVolume: buy ? c.takerBuyQuoteVolume.plus(quote) : c.takerBuyQuoteVolume,
  };
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
    const quote = trade.price.times(trade.qty);
    return this.each((interval, c) => applyTrade(c, interval, trade, quote));
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
