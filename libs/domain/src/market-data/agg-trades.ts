import type { Money } from '../money/money';
import type { TradeSide } from './candles';

/**
 * Binance's aggregate trade: consecutive fills of one taker order at one price. Field names are
 * Binance's: a = aggregate id (= its first trade id), p price, q summed quantity, f/l first and
 * last trade id, T time of the first fill, m = the buyer was the maker.
 */
export interface AggTrade {
  a: number;
  p: Money;
  q: Money;
  f: number;
  l: number;
  T: number;
  m: boolean;
}

/** An aggregate still open for more fills: what decides whether the next fill extends it. */
export interface OpenAggTrade extends AggTrade {
  takerOrderId: string;
}

/** One fill of the symbol, in its log order; `id` is the symbol's integer trade id (increasing). */
export interface AggFill {
  id: number;
  time: number;
  price: Money;
  qty: Money;
  takerOrderId: string;
  takerSide: TradeSide;
}

/**
 * The open aggregate after the next fill of the symbol. The fill extends `open` when it is of the
 * same taker order, at the same price and the same time (one command's fills share its time);
 * otherwise it starts a new aggregate (`result.a === fill.id`) and `open` is final. A fill whose id
 * is not above `open.l` (a replayed copy) returns `open` unchanged. Since `a` never changes once
 * started, a projector can upsert the returned aggregate by `a` after every fill.
 */
export function nextAggTrade(open: OpenAggTrade | undefined, fill: AggFill): OpenAggTrade {
  if (open && fill.id <= open.l) return open;
  if (open && open.takerOrderId === fill.takerOrderId && open.T === fill.time && open.p.eq(fill.price)) {
    return { ...open, q: open.q.plus(fill.qty), l: fill.id };
  }
  return {
    a: fill.id,
    p: fill.price,
    q: fill.qty,
    f: fill.id,
    l: fill.id,
    T: fill.time,
    m: fill.takerSide === 'SELL',
    takerOrderId: fill.takerOrderId,
  };
}

/** Binance's aggTrades wire object: decimals as strings (exact unless decimals are given). */
export interface AggTradeRow {
  a: number;
  p: string;
  q: string;
  f: number;
  l: number;
  T: number;
  m: boolean;
}

export function aggTradeRow(
  t: AggTrade,
  format: { priceDecimals?: number; qtyDecimals?: number } = {},
): AggTradeRow {
  const { priceDecimals: pd, qtyDecimals: qd } = format;
  return {
    a: t.a,
    p: pd === undefined ? t.p.toFixed() : t.p.toFixed(pd),
    q: qd === undefined ? t.q.toFixed() : t.q.toFixed(qd),
    f: t.f,
    l: t.l,
    T: t.T,
    m: t.m,
  };
}
