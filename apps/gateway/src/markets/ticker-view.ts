import type { BookTop, TickerState } from '@perp/contracts';
import { type Market, Money, parseDecimal } from '@perp/domain';

const DAY_MS = 24 * 3600_000;
const ZERO = new Money(0);
const decimal = (v: string | undefined) => parseDecimal(v ?? '0') ?? ZERO;

/** A market's rolling 24 h statistics as numbers to render. */
export interface TickerStats {
  openTime: number;
  closeTime: number;
  open: Money;
  high: Money;
  low: Money;
  /** The last price ever traded (Binance keeps it after a quiet day); 0 when never traded. */
  last: Money;
  lastQty: Money;
  volume: Money;
  quoteVolume: Money;
  count: number;
  firstTime: number;
  lastTime: number;
}

/**
 * The statistics of a projected ticker (`readTicker`). Never traded: every figure 0 over the 24 h
 * before `now`. Traded, but not in the window: open, high and low are the last price (no change).
 */
export function stats24h(s: TickerState | undefined, now: number): TickerStats {
  if (!s)
    return {
      openTime: now - DAY_MS,
      closeTime: now,
      open: ZERO,
      high: ZERO,
      low: ZERO,
      last: ZERO,
      lastQty: ZERO,
      volume: ZERO,
      quoteVolume: ZERO,
      count: 0,
      firstTime: 0,
      lastTime: 0,
    };
  const last = decimal(s.lastPrice || s.last);
  const quiet = s.count === 0;
  return {
    openTime: s.openTime,
    closeTime: s.closeTime,
    open: quiet ? last : decimal(s.open),
    high: quiet ? last : decimal(s.high),
    low: quiet ? last : decimal(s.low),
    last,
    lastQty: decimal(s.lastQty),
    volume: decimal(s.volume),
    quoteVolume: decimal(s.quoteVolume),
    count: s.count,
    firstTime: s.firstTime,
    lastTime: s.lastTime,
  };
}

/** The 24 h figures in decimal strings at the market's precisions (shared by FAPI and native views). */
export function tickerFigures(m: Market, s: TickerStats) {
  const change = s.last.minus(s.open);
  const percent = s.open.isZero() ? ZERO : change.div(s.open).times(100);
  const weighted = s.volume.isZero() ? ZERO : s.quoteVolume.div(s.volume);
  const px = (v: Money) => v.toFixed(m.pricePrecision);
  return {
    priceChange: px(change),
    priceChangePercent: percent.toFixed(3, Money.ROUND_HALF_UP),
    weightedAvgPrice: weighted.toFixed(m.pricePrecision, Money.ROUND_HALF_UP),
    lastPrice: px(s.last),
    lastQty: s.lastQty.toFixed(m.quantityPrecision),
    openPrice: px(s.open),
    highPrice: px(s.high),
    lowPrice: px(s.low),
    volume: s.volume.toFixed(m.quantityPrecision),
    quoteVolume: s.quoteVolume.toFixed(),
  };
}

/** FAPI 24 h ticker record (spec: firstId/lastId are trade timestamps in ms). */
export function fapiTicker(m: Market, s: TickerStats) {
  return {
    symbol: m.symbol,
    ...tickerFigures(m, s),
    openTime: s.openTime,
    closeTime: s.closeTime,
    firstId: s.firstTime,
    lastId: s.lastTime,
    count: s.count,
  };
}

/** `ticker/price` (v1 and v2): the last traded price and its time (never traded: 0 at the window's close). */
export function tickerPrice(m: Market, s: TickerStats) {
  return { symbol: m.symbol, price: s.last.toFixed(m.pricePrecision), time: s.lastTime || s.closeTime };
}

/** The latest price-feed figures of a symbol (the risk router's `HOT_KEYS.price` hash). */
export interface FeedPrice {
  price?: Money;
  time?: number;
}

/** The feed price of the `HOT_KEYS.price` hash: the index price (the feed's own), else the mark. */
export function feedPrice(row: Record<string, string>): FeedPrice {
  const price = parseDecimal(row.indexPrice) ?? parseDecimal(row.markPrice);
  const time = Number(row.time);
  return { price, time: Number.isSafeInteger(time) && time > 0 ? time : undefined };
}

/**
 * `ticker/bookTicker`: the projected top of the book. A side without orders takes its price from
 * the price feed with quantity 0 (spec: an empty book cache shows feed prices and quantities "0").
 */
export function bookTicker(m: Market, top: BookTop, feed: FeedPrice, now: number) {
  const px = (v: Money) => v.toFixed(m.pricePrecision);
  const qty = (v: Money) => v.toFixed(m.quantityPrecision);
  const side = (l: BookTop['bid']) =>
    l.qty.gt(0) ? [px(l.price), qty(l.qty)] : [px(feed.price ?? ZERO), '0'];
  const [bidPrice, bidQty] = side(top.bid);
  const [askPrice, askQty] = side(top.ask);
  const booked = top.seq >= 0;
  return {
    symbol: m.symbol,
    bidPrice,
    bidQty,
    askPrice,
    askQty,
    time: booked && top.time > 0 ? top.time : (feed.time ?? now),
    lastUpdateId: Math.max(top.seq, 0),
  };
}
