import type { Money } from '../money/money';
import type { TriggerDirection } from './trigger-orders';

/** What the book needs of a waiting trigger order; callers keep their own fields beside these. */
export interface TriggerEntry {
  orderId: string;
  symbol: string;
  direction: TriggerDirection;
  stopPrice: Money;
  /** Placement sequence: ties and the firing order follow it. */
  seq: number;
}

interface SymbolTriggers<T> {
  /** RISE entries by stopPrice ascending: a mark fires a prefix. */
  rise: T[];
  /** FALL entries by stopPrice descending: a mark fires a prefix. */
  fall: T[];
}

/**
 * Waiting trigger orders per symbol, sorted so a mark price finds the ones it reaches without
 * scanning the rest. Deterministic: the fired entries come out in placement order.
 */
export class TriggerBook<T extends TriggerEntry> {
  private readonly symbols = new Map<string, SymbolTriggers<T>>();
  private readonly byId = new Map<string, T>();

  get size(): number {
    return this.byId.size;
  }

  get(orderId: string): T | undefined {
    return this.byId.get(orderId);
  }

  /** Every entry in placement order (snapshots). */
  entries(): T[] {
    return [...this.byId.values()].sort((a, b) => a.seq - b.seq);
  }

  add(entry: T): void {
    if (this.byId.has(entry.orderId)) throw new Error(`trigger ${entry.orderId} is already waiting`);
    const side = this.side(entry.symbol, entry.direction, true)!;
    side.splice(this.insertAt(side, entry), 0, entry);
    this.byId.set(entry.orderId, entry);
  }

  remove(orderId: string): T | undefined {
    const entry = this.byId.get(orderId);
    if (!entry) return undefined;
    const side = this.side(entry.symbol, entry.direction, false)!;
    side.splice(side.indexOf(entry), 1);
    this.byId.delete(orderId);
    return entry;
  }

  /** Removes and returns every entry of `symbol` that `mark` reaches. */
  fire(symbol: string, mark: Money): T[] {
    const s = this.symbols.get(symbol);
    if (!s) return [];
    let rise = 0;
    while (rise < s.rise.length && mark.gte(s.rise[rise]!.stopPrice)) rise++;
    let fall = 0;
    while (fall < s.fall.length && mark.lte(s.fall[fall]!.stopPrice)) fall++;
    const fired = [...s.rise.splice(0, rise), ...s.fall.splice(0, fall)].sort((a, b) => a.seq - b.seq);
    for (const e of fired) this.byId.delete(e.orderId);
    return fired;
  }

  private side(symbol: string, direction: TriggerDirection, create: boolean): T[] | undefined {
    let s = this.symbols.get(symbol);
    if (!s && create) this.symbols.set(symbol, (s = { rise: [], fall: [] }));
    return s && (direction === 'RISE' ? s.rise : s.fall);
  }

  /** Binary search for the first entry that sorts after `entry` (stop price, then sequence). */
  private insertAt(side: T[], entry: T): number {
    const sign = entry.direction === 'RISE' ? 1 : -1;
    let lo = 0;
    let hi = side.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = side[mid]!;
      const byPrice = e.stopPrice.comparedTo(entry.stopPrice)! * sign;
      if (byPrice > 0 || (byPrice === 0 && e.seq > entry.seq)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
