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

/** A plain decimal (the contract's `decimal`). */
const DECIMAL = /^-?\d+(\.\d+)?$/;

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
  const scored: { p: AdlPosition; n: number }[] = [];
  const unscored: AdlPosition[] = [];
  for (const p of positions) {
    if (!(p.lots > 0)) continue;
    const n = p.score !== undefined && DECIMAL.test(p.score) ? Number(p.score) : Number.NaN;
    if (Number.isFinite(n)) scored.push({ p, n });
    else unscored.push(p);
  }
  // Rounding to a double is monotonic: different doubles order their decimals exactly; equal
  // doubles fall back to exact decimal comparison.
  scored.sort(
    (a, b) =>
      b.n - a.n ||
      (a.p.score === b.p.score ? 0 : new Money(b.p.score!).comparedTo(a.p.score!)) ||
      byUser(a.p, b.p),
  );
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
