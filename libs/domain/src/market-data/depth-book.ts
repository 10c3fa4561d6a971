import { Money, parseDecimal } from '../money/money';

/** A price level as on the wire: [price, quantity], decimal strings. */
export type DepthLevel = [price: string, qty: string];

/** Changed levels of one symbol's book; a quantity of zero removes the level. */
export interface DepthDelta {
  /** The producer's sequence number: increasing, gaps allowed (it may number other events too). */
  seq: number;
  bids: readonly DepthLevel[];
  asks: readonly DepthLevel[];
}

/** The book (or its top) as `GET /fapi/v1/depth` answers it: best levels first. */
export interface DepthSnapshot {
  lastUpdateId: number;
  bids: DepthLevel[];
  asks: DepthLevel[];
}

interface Level {
  price: Money;
  /** The price as the producer wrote it, rendered back unchanged. */
  priceText: string;
  qty: string;
}

interface Change {
  key: string;
  price: Money;
  priceText: string;
  qty: string;
  remove: boolean;
}

/**
 * One side of the book: levels by exact price (the key is the canonical decimal, so "100.10" and
 * "100.1" are one level) plus an array ordered worst to best. The best level sits at the end, so the
 * frequent changes near the top insert and remove with a short tail move, and a change of quantity
 * is a map hit.
 */
class DepthSide {
  private readonly byKey = new Map<string, Level>();
  private readonly sorted: Level[] = [];

  /** `bids` rank higher prices better, asks lower. */
  constructor(private readonly bids: boolean) {}

  get size(): number {
    return this.sorted.length;
  }

  set(c: Change): void {
    const level = this.byKey.get(c.key);
    if (c.remove) {
      if (!level) return;
      this.byKey.delete(c.key);
      this.sorted.splice(this.indexOf(level.price), 1);
    } else if (level) {
      level.qty = c.qty;
    } else {
      const added: Level = { price: c.price, priceText: c.priceText, qty: c.qty };
      this.byKey.set(c.key, added);
      this.sorted.splice(this.indexOf(c.price), 0, added);
    }
  }

  /** Best first, at most `limit` levels. */
  top(limit: number): DepthLevel[] {
    const out: DepthLevel[] = [];
    for (let i = this.sorted.length - 1; i >= 0 && out.length < limit; i -= 1) {
      const l = this.sorted[i];
      out.push([l.priceText, l.qty]);
    }
    return out;
  }

  /** Where `price` is, or would be inserted, in worst-to-best order (binary search, exact compare). */
  private indexOf(price: Money): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.sorted[mid].price.comparedTo(price) ?? 0; // never null: prices are finite
      if ((this.bids ? c : -c) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function parseLevels(levels: readonly DepthLevel[]): Change[] {
  return levels.map(([priceText, qty]) => {
    const price = parseDecimal(priceText);
    const q = parseDecimal(qty);
    if (!price || !price.gt(0))
      throw new RangeError(`depth level price is not a positive decimal: ${priceText}`);
    if (!q || q.lt(0)) throw new RangeError(`depth level quantity is not a decimal >= 0: ${qty}`);
    return { key: price.toFixed(), price, priceText, qty, remove: q.isZero() };
  });
}

/**
 * The L2 book of one symbol, fed by deltas in sequence order; what `GET /fapi/v1/depth` and the
 * depth streams serve. No wall clock, no floats: prices compare as exact decimals.
 */
export class DepthBook {
  private readonly bidSide = new DepthSide(true);
  private readonly askSide = new DepthSide(false);
  private seq = 0;

  /** The seq of the last delta applied (0 before any; producers number from 1). */
  get lastUpdateId(): number {
    return this.seq;
  }

  /** Levels held per side. */
  get depth(): { bids: number; asks: number } {
    return { bids: this.bidSide.size, asks: this.askSide.size };
  }

  /**
   * Applies a delta whose seq is above lastUpdateId and returns true; an older or repeated one is
   * ignored (false). A malformed level throws before anything changes.
   */
  apply(delta: DepthDelta): boolean {
    if (delta.seq <= this.seq) return false;
    this.write(delta.bids, delta.asks);
    this.seq = delta.seq;
    return true;
  }

  /** The best `limit` levels of each side, best first (every level without a limit). */
  top(limit = Infinity): DepthSnapshot {
    return { lastUpdateId: this.seq, bids: this.bidSide.top(limit), asks: this.askSide.top(limit) };
  }

  /** The whole book, for persistence. */
  toJSON(): DepthSnapshot {
    return this.top();
  }

  static fromJSON(s: DepthSnapshot): DepthBook {
    const book = new DepthBook();
    book.write(s.bids, s.asks);
    book.seq = s.lastUpdateId;
    return book;
  }

  private write(bidLevels: readonly DepthLevel[], askLevels: readonly DepthLevel[]): void {
    const bids = parseLevels(bidLevels);
    const asks = parseLevels(askLevels);
    for (const c of bids) this.bidSide.set(c);
    for (const c of asks) this.askSide.set(c);
  }
}
