import type { EngineEvent, MarkPriceEvent, TickerState } from '@perp/contracts';
import {
  type AggTrade,
  aggTradeRow,
  type Candle,
  type DepthLevel,
  type KlineInterval,
  type Market,
  type MergedDelta,
  Money,
  nextAggTrade,
  type OpenAggTrade,
} from '@perp/domain';
import type { SortedDepth } from '../fapi/market/depth-view';
import type * as W from './asyncapi/binance-messages';
import type { Msg } from './asyncapi/binance-messages';
import { PRICE_SERIES_DECIMALS, tradeKlineRow } from '../fapi/market/kline-views';
import { stats24h, tickerFigures } from '../markets/ticker-view';

/** Binance USDⓈ-M market stream payloads, rendered like the REST views of the same data. */

type TradeEvent = Extract<EngineEvent, { type: 'trade' }>;
type BookTopEvent = Extract<EngineEvent, { type: 'book.top' }>;

const px = (m: Market, v: string) => new Money(v).toFixed(m.pricePrecision);
const qty = (m: Market, v: string) => new Money(v).toFixed(m.quantityPrecision);
const levels = (m: Market, ls: readonly DepthLevel[]): DepthLevel[] =>
  ls.map(([p, q]) => [px(m, p), qty(m, q)]);

/*
 * `E` (event time) of the streams rendered from one engine event is the time that event was
 * appended to the log (its bus timestamp): the same on every replica, and what event-to-socket
 * latency counts from.
 */

/** `<symbol>@trade`: one fill; `t` is the symbol's trade id (REST trades' `id`). */
export function tradePayload(m: Market, t: TradeEvent, logged: number): Msg<typeof W.TradeEvent> {
  return {
    e: 'trade',
    E: logged,
    T: t.time,
    s: m.symbol,
    t: t.seq,
    p: px(m, t.price),
    q: qty(m, t.qty),
    X: 'MARKET',
    m: t.taker.side === 'SELL',
  };
}

/**
 * `<symbol>@aggTrade`: the fills of one batch aggregated as REST aggTrades aggregates them
 * (`nextAggTrade`: one taker order at one price and time): `a` = `f` = the first fill's id. `E` is
 * the log time of the aggregate's last fill (`logged[i]` is trade i's).
 */
export function aggTradePayloads(
  m: Market,
  trades: readonly TradeEvent[],
  logged: readonly number[],
): Msg<typeof W.AggTradeEvent>[] {
  const closed: [AggTrade, number][] = [];
  let open: OpenAggTrade | undefined;
  let openLogged = 0;
  for (let i = 0; i < trades.length; i++) {
    const t = trades[i]!;
    const next = nextAggTrade(open, {
      id: t.seq,
      time: t.time,
      price: new Money(t.price),
      qty: new Money(t.qty),
      takerOrderId: t.taker.orderId,
      takerSide: t.taker.side,
    });
    if (open && next.a !== open.a) closed.push([open, openLogged]);
    open = next;
    openLogged = logged[i]!;
  }
  if (open) closed.push([open, openLogged]);
  const format = { priceDecimals: m.pricePrecision, qtyDecimals: m.quantityPrecision };
  return closed.map(([a, E]) => ({ e: 'aggTrade', E, s: m.symbol, ...aggTradeRow(a, format) }));
}

/** `<symbol>@bookTicker` and `!bookTicker`: `u` is the book sequence of the change. */
export function bookTickerPayload(m: Market, b: BookTopEvent, logged: number): Msg<typeof W.BookTickerEvent> {
  return {
    e: 'bookTicker',
    u: b.seq,
    E: logged,
    T: b.time,
    s: m.symbol,
    b: px(m, b.bidPrice),
    B: qty(m, b.bidQty),
    a: px(m, b.askPrice),
    A: qty(m, b.askQty),
  };
}

/** `<symbol>@depth[@speed]`: the deltas of one window (U, u, pu as REST depth's lastUpdateId counts). */
export function diffDepthPayload(
  m: Market,
  d: MergedDelta,
  time: number,
  now: number,
): Msg<typeof W.DepthUpdateEvent> {
  return {
    e: 'depthUpdate',
    E: now,
    T: time,
    s: m.symbol,
    U: d.U,
    u: d.u,
    pu: d.pu,
    b: levels(m, d.b),
    a: levels(m, d.a),
  };
}

/** `<symbol>@depth<N>[@speed]`: the best N levels of the projected book REST depth serves. */
export function partialDepthPayload(
  m: Market,
  d: SortedDepth,
  n: number,
  pu: number,
  now: number,
): Msg<typeof W.DepthUpdateEvent> {
  const seq = Math.max(d.seq, 0);
  return {
    e: 'depthUpdate',
    E: now,
    T: d.time || now,
    s: m.symbol,
    U: seq,
    u: seq,
    pu,
    b: d.bids.slice(0, n),
    a: d.asks.slice(0, n),
  };
}

const series = (v: string) => new Money(v).toFixed(PRICE_SERIES_DECIMALS, Money.ROUND_HALF_UP);

/** `<symbol>@markPrice[@1s]` and the `!markPrice@arr` rows, from the latest price.mark event. */
export function markPricePayload(e: MarkPriceEvent, now: number): Msg<typeof W.MarkPriceEvent> {
  return {
    e: 'markPriceUpdate',
    E: now,
    s: e.symbol,
    p: series(e.markPrice),
    i: series(e.indexPrice),
    P: series(e.markPrice),
    r: new Money(e.fundingRate).toFixed(8, Money.ROUND_HALF_UP),
    T: e.nextFundingTime,
  };
}

/** `<symbol>@kline_<interval>` (and continuousKline): the current candle as REST klines shows it. */
export function klinePayload(
  m: Market,
  interval: KlineInterval,
  c: Candle,
  now: number,
  continuous: boolean,
  /** The interval is over (kline-streams.ts decides it by the log's time). */
  closed: boolean,
): Msg<typeof W.KlineEvent> | Msg<typeof W.ContinuousKlineEvent> {
  const [t, o, h, l, close, v, T, q, n, V, Q] = tradeKlineRow(m, c);
  const k = { t, T, i: interval, f: -1, L: -1, o, c: close, h, l, v, n, x: closed, q, V, Q, B: '0' };
  return continuous
    ? { e: 'continuous_kline', E: now, ps: m.symbol, ct: 'PERPETUAL', k }
    : { e: 'kline', E: now, s: m.symbol, k: { ...k, s: m.symbol } };
}

/** `<symbol>@ticker` and `!ticker@arr`: the 24 h statistics REST ticker/24hr serves. */
export function tickerPayload(m: Market, s: TickerState | undefined, now: number): Msg<typeof W.TickerEvent> {
  const st = stats24h(s, now);
  const f = tickerFigures(m, st);
  return {
    e: '24hrTicker',
    E: now,
    s: m.symbol,
    p: f.priceChange,
    P: f.priceChangePercent,
    w: f.weightedAvgPrice,
    c: f.lastPrice,
    Q: f.lastQty,
    o: f.openPrice,
    h: f.highPrice,
    l: f.lowPrice,
    v: f.volume,
    q: f.quoteVolume,
    O: st.openTime,
    C: st.closeTime,
    F: st.firstTime,
    L: st.lastTime,
    n: st.count,
  };
}

/** `<symbol>@miniTicker` and `!miniTicker@arr`. */
export function miniTickerPayload(
  m: Market,
  s: TickerState | undefined,
  now: number,
): Msg<typeof W.MiniTickerEvent> {
  const t = tickerPayload(m, s, now);
  return { e: '24hrMiniTicker', E: now, s: m.symbol, c: t.c, o: t.o, h: t.h, l: t.l, v: t.v, q: t.q };
}
