import { growF64, growI32, growU8 } from './typed-arrays';
import { BookSide } from './types';

const { BUY, SELL } = BookSide;

/** A price level whose resting quantity the last command changed, and that quantity now (0: gone). */
export interface BookLevelChange {
  side: BookSide;
  price: number;
  quantity: number;
}

/**
 * The levels the last command changed, net: each (side, price) at most once, only where the
 * aggregated resting quantity differs from before the command; bids best first (descending
 * price), then asks best first (ascending).
 */
export interface BookLevelChangeLog {
  readonly count: number;
  side(i: number): BookSide;
  price(i: number): number;
  /** Resting quantity of the level now; 0 when the level is gone. */
  quantity(i: number): number;
  toArray(): BookLevelChange[];
}

/** What the log reads when it settles: the command's records and the levels' quantities now. */
export interface TouchedLevels {
  readonly touchedSlot: Int32Array;
  readonly touchedKey: Float64Array;
  readonly touchedBefore: Float64Array;
  readonly touchedCount: number;
  readonly commands: number;
  /** The quantity at (side, price), found from `slot`, the level's slot when it was recorded. */
  qtyNow(slot: number, side: number, price: number): number;
}

/**
 * OrderBook's level changes. On the hot path PriceLevels records, before it changes a level's
 * quantity, the slot, the level's key (-price for a bid, +price for an ask) and its quantity (three
 * typed-array stores, nothing allocated once grown), skipping a repeat of the level it recorded
 * last. A level can so be recorded more than once in a command (touched again after another, or
 * dropped and recreated at the same price), and could end where it began; so this log settles on
 * first read: sorted stably by key, the first record of each level gives its quantity before the
 * command, and only levels whose quantity now differs are kept. Matching never pays for the read.
 */
export class LevelChanges implements BookLevelChangeLog {
  private cap = 16;
  private order: Int32Array = new Int32Array(this.cap);
  /** The command the settled columns are of. */
  private settledAt = 0;
  private m = 0;
  private sSide: Uint8Array = new Uint8Array(this.cap);
  private sPrice: Float64Array = new Float64Array(this.cap);
  private sQty: Float64Array = new Float64Array(this.cap);

  constructor(private readonly levels: TouchedLevels) {}

  get count(): number {
    if (this.settledAt !== this.levels.commands) this.settle();
    return this.m;
  }
  side(i: number): BookSide {
    this.check(i);
    return this.sSide[i] as BookSide;
  }
  price(i: number): number {
    this.check(i);
    return this.sPrice[i];
  }
  quantity(i: number): number {
    this.check(i);
    return this.sQty[i];
  }
  toArray(): BookLevelChange[] {
    const out: BookLevelChange[] = [];
    for (let i = 0; i < this.count; i++)
      out.push({ side: this.sSide[i] as BookSide, price: this.sPrice[i], quantity: this.sQty[i] });
    return out;
  }

  private check(i: number): void {
    if (i < 0 || i >= this.count) throw new RangeError(`level change ${i} of ${this.m}`);
  }

  private settle(): void {
    const levels = this.levels;
    const n = levels.touchedCount;
    const { touchedKey: key, touchedBefore: before, touchedSlot: slot } = levels;
    if (n > this.cap) this.grow(n);
    const order = this.order;
    // Ascending keys: bids best first, then asks best first. Stable, so a level's first record
    // leads: by insertion when few (the usual command; sweeps record in price order anyway), else
    // by the built-in sort.
    if (n <= 32)
      for (let i = 0; i < n; i++) {
        const k = key[i];
        let j = i;
        for (; j > 0 && key[order[j - 1]] > k; j--) order[j] = order[j - 1];
        order[j] = i;
      }
    else {
      for (let i = 0; i < n; i++) order[i] = i;
      order.subarray(0, n).sort((a, b) => key[a] - key[b] || a - b);
    }
    let m = 0;
    for (let j = 0; j < n;) {
      const first = order[j];
      const k = key[first];
      while (++j < n && key[order[j]] === k);
      const side = k < 0 ? BUY : SELL;
      const price = k < 0 ? -k : k;
      const now = levels.qtyNow(slot[first], side, price);
      if (now === before[first]) continue;
      this.sSide[m] = side;
      this.sPrice[m] = price;
      this.sQty[m] = now;
      m++;
    }
    this.m = m;
    this.settledAt = levels.commands;
  }

  private grow(n: number): void {
    let cap = this.cap;
    while (cap < n) cap *= 2;
    this.order = growI32(this.order, cap);
    this.sSide = growU8(this.sSide, cap);
    this.sPrice = growF64(this.sPrice, cap);
    this.sQty = growF64(this.sQty, cap);
    this.cap = cap;
  }
}
