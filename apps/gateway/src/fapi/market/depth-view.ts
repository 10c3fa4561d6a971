import type { ProjectedDepth } from '@perp/contracts';
import { DepthBook, type DepthLevel, type Market, Money } from '@perp/domain';

/** The deepest `limit` of GET /fapi/v1/depth: the most levels a side is ever served with. */
export const MAX_DEPTH_LIMIT = 1000;

/** A projected book sorted best first and rendered at the market's precisions, kept per `seq`. */
export interface SortedDepth {
  /** The engine book sequence it was read at; -1 when nothing was projected. */
  seq: number;
  time: number;
  bids: DepthLevel[];
  asks: DepthLevel[];
  /** `"bids":[…],"asks":[…]}` per limit as UTF-8, serialized once per book (see depthJson). */
  levelsJson: Map<number, Buffer>;
  /** The last whole answer per limit and the millisecond it is for (see depthJson). */
  answers: Map<number, { now: number; body: Buffer }>;
}

/** Sorts the hot store's unsorted levels (exact decimal order, through DepthBook) and renders them. */
export function sortDepth(m: Market, d: ProjectedDepth): SortedDepth {
  const top = DepthBook.fromJSON({ lastUpdateId: Math.max(d.seq, 0), bids: d.bids, asks: d.asks }).top(
    MAX_DEPTH_LIMIT,
  );
  const render = ([price, qty]: DepthLevel): DepthLevel => [
    new Money(price).toFixed(m.pricePrecision),
    new Money(qty).toFixed(m.quantityPrecision),
  ];
  return {
    seq: d.seq,
    time: d.time,
    bids: top.bids.map(render),
    asks: top.asks.map(render),
    levelsJson: new Map(),
    answers: new Map(),
  };
}

/**
 * Binance's order-book answer: `lastUpdateId` is the engine's book sequence (0 before any change),
 * `E` the answer's time, `T` the time of the last change.
 */
export function depthView(d: SortedDepth, limit: number, now: number) {
  return {
    lastUpdateId: Math.max(d.seq, 0),
    E: now,
    T: d.time || now,
    bids: d.bids.length > limit ? d.bids.slice(0, limit) : d.bids,
    asks: d.asks.length > limit ? d.asks.slice(0, limit) : d.asks,
  };
}

/**
 * `depthView` as a UTF-8 JSON body: the levels of a book are serialized and encoded once per limit
 * and reused until the book changes, so a repeated read writes a few numbers before cached bytes.
 */
export function depthJson(d: SortedDepth, limit: number, now: number): Buffer {
  let levels = d.levelsJson.get(limit);
  if (levels === undefined) {
    const v = depthView(d, limit, now);
    levels = Buffer.from(`"bids":${JSON.stringify(v.bids)},"asks":${JSON.stringify(v.asks)}}`);
    d.levelsJson.set(limit, levels);
  }
  // Only the head changes with the time (E, and T before any change): requests of one millisecond
  // share one answer, the others copy the levels' bytes behind a new head.
  const last = d.answers.get(limit);
  if (last !== undefined && last.now === now) return last.body;
  const head = `{"lastUpdateId":${Math.max(d.seq, 0)},"E":${now},"T":${d.time || now},`;
  const body = Buffer.concat([Buffer.from(head, 'latin1'), levels]);
  d.answers.set(limit, { now, body });
  return body;
}
