const EMPTY = -1;

/**
 * Safe integer -> non-negative int32 map: open addressing, linear probing, backward-shift deletion
 * (no tombstones), load at most 1/2. Two typed arrays instead of a Map: no entry objects, no
 * allocation except when it doubles, and about 12 bytes per slot.
 */
export class IntMap {
  size = 0;
  private keys: Float64Array;
  private vals: Int32Array;
  private mask: number;

  constructor(expected = 16) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.keys = new Float64Array(cap);
    this.vals = new Int32Array(cap).fill(EMPTY);
    this.mask = cap - 1;
  }

  /** The value of key, or -1. */
  get(key: number): number {
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let i = hash(key) & mask;
    for (;;) {
      const v = vals[i];
      if (v === EMPTY) return EMPTY;
      if (keys[i] === key) return v;
      i = (i + 1) & mask;
    }
  }

  /** Sets key to val (val >= 0). */
  set(key: number, val: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.resize((this.mask + 1) * 2);
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let i = hash(key) & mask;
    for (;;) {
      const v = vals[i];
      if (v === EMPTY) {
        keys[i] = key;
        vals[i] = val;
        this.size++;
        return;
      }
      if (keys[i] === key) {
        vals[i] = val;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  /** Removes key; returns its value or -1. */
  delete(key: number): number {
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let i = hash(key) & mask;
    for (;;) {
      const v = vals[i];
      if (v === EMPTY) return EMPTY;
      if (keys[i] === key) break;
      i = (i + 1) & mask;
    }
    const found = vals[i];
    // Shift later members of the probe run back so lookups never stop early at the hole.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      if (vals[j] === EMPTY) break;
      const home = hash(keys[j]) & mask;
      const between = i <= j ? i < home && home <= j : i < home || home <= j;
      if (between) continue;
      keys[i] = keys[j];
      vals[i] = vals[j];
      i = j;
    }
    vals[i] = EMPTY;
    this.size--;
    return found;
  }

  clear(): void {
    this.vals.fill(EMPTY);
    this.size = 0;
  }

  private resize(cap: number): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    this.keys = new Float64Array(cap);
    this.vals = new Int32Array(cap).fill(EMPTY);
    this.mask = cap - 1;
    this.size = 0;
    for (let i = 0; i < oldVals.length; i++) if (oldVals[i] !== EMPTY) this.set(oldKeys[i], oldVals[i]);
  }
}

/** Mixes both 32-bit halves of a safe integer (ids above 2^32 stay well spread). */
function hash(key: number): number {
  const lo = key | 0;
  const hi = (key / 4294967296) | 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1);
  h ^= h >>> 15;
  return h;
}
