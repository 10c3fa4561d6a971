import { Money } from '../money/money';

/** An open position of one side of a symbol, as ADL ranks it. */
export interface AdlPosition {
  user: string;
  /** Size in lots, positive (the side is given by which list it is in). */
  lots: number;
  /** The latest ADL score; undefined when none is known (ranks last). */
  score?: string;
}

/** A slice of the deleveraging plan: close `lots` of `user`'s position. */
export interface AdlClose {
  user: string;
  lots: number;
}

const scoreCache = new Map<string, Money>();
function money(s: string): Money {
  let m = scoreCache.get(s);
  if (!m) {
    m = new Money(s);
    if (scoreCache.size > 10_000) scoreCache.clear();
    scoreCache.set(s, m);
  }
  return m;
}

/** Compares two users' addresses as plain strings (lower-case hex: byte order is numeric order). */
function byUser(a: AdlPosition, b: AdlPosition): number {
  return a.user < b.user ? -1 : a.user > b.user ? 1 : 0;
}

/**
 * The ADL queue of one side: score descending (first in line first), positions without a score
 * after every scored one, ties by user address ascending. Positions of 0 lots are left out.
 * A malformed score counts as none.
 */
export function rankForAdl(positions: readonly AdlPosition[]): AdlPosition[] {
  const scored: { p: AdlPosition; s: Money }[] = [];
  const unscored: AdlPosition[] = [];
  for (const p of positions) {
    if (!(p.lots > 0)) continue;
    const s = p.score === undefined ? undefined : money(p.score);
    if (s?.isFinite()) scored.push({ p, s });
    else unscored.push(p);
  }
  scored.sort((a, b) => b.s.comparedTo(a.s) || byUser(a.p, b.p));
  unscored.sort(byUser);
  return [...scored.map((x) => x.p), ...unscored];
}

/**
 * The ADL indicator of each ranked position (Binance's LeveragePnlQuantile in 20% steps): 5 for
 * the first fifth of the queue, down to 1 for the last; the i-th of n (from 0) gets
 * 5 - floor(5 i / n). `ranked` is `rankForAdl`'s order.
 */
export function adlQuantiles(ranked: readonly AdlPosition[]): [user: string, quantile: number][] {
  const n = ranked.length;
  return ranked.map((p, i) => [p.user, 5 - Math.floor((5 * i) / n)]);
}

/**
 * Which positions close, and how much, to cover `lots`: down the queue (`rankForAdl`'s order),
 * each position closed whole until the last one covers the rest. Covers less than `lots` only when
 * the side holds less in total.
 */
export function deleveragePlan(ranked: readonly AdlPosition[], lots: number): AdlClose[] {
  const out: AdlClose[] = [];
  let left = lots;
  for (const p of ranked) {
    if (left <= 0) break;
    if (!(p.lots > 0)) continue;
    const q = Math.min(left, p.lots);
    out.push({ user: p.user, lots: q });
    left -= q;
  }
  return out;
}
