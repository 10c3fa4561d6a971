import { LevelChanges } from './level-changes';
import { Slot } from './order-pool';
import { growF64, growI32, growU8 } from './typed-arrays';
import { BookSide } from './types';

const NIL = Slot.NIL;
const BUY = BookSide.BUY;
/** Levels walked from the best price before falling back to the tree (new orders land near the top). */
const FINGER = 8;

/**
 * The price levels of both sides, as struct-of-arrays columns indexed by slot. Each level heads a
 * FIFO of orders (links in OrderPool) and keeps their total quantity and count. The levels of a
 * side form a doubly-linked list best -> worst (matching walks it), indexed by a treap (insert and
 * remove O(log n), O(1) expected near the top thanks to the walk from the best level).
 * Free slots are chained through `next`. `touch` records a level in `changes` before a command
 * changes its quantity (not again while it is the level touched last: a fill and its maker's
 * removal, or a sweep of one level, record it once).
 */
export class PriceLevels {
  cap: number;
  private top = 0;
  private freeHead = NIL;
  price: Float64Array;
  /** Open quantity of the level's orders. */
  qty: Float64Array;
  head: Int32Array;
  tail: Int32Array;
  /** Orders in the level. */
  count: Int32Array;
  /** Neighbours in price order: prev is the better price, next the worse. */
  prev: Int32Array;
  next: Int32Array;
  private left: Int32Array;
  private right: Int32Array;
  private parent: Int32Array;
  private prio: Int32Array;
  private side: Uint8Array;
  /**
   * The current command's records, one per `touch` (LevelChanges reads them): the slot, the level's
   * key (-price for a bid, +price for an ask) and its quantity before the change.
   */
  touchedSlot: Int32Array = new Int32Array(16);
  touchedKey: Float64Array = new Float64Array(16);
  touchedBefore: Float64Array = new Float64Array(16);
  touchedCount = 0;
  /** Commands begun: LevelChanges settles again when it changes. */
  commands = 0;
  /** The level recorded last in this command (NIL: none, or its slot may hold a new level). */
  private touched = NIL;
  /** The levels the last command changed, net. */
  readonly changes = new LevelChanges(this);
  /** Best level per side. */
  readonly best = new Int32Array([NIL, NIL]);
  /** Levels per side. */
  readonly sideCount = new Int32Array(2);
  private readonly root = new Int32Array([NIL, NIL]);
  private rng = 0x9e3779b9;

  constructor(cap: number) {
    this.cap = cap;
    this.price = new Float64Array(cap);
    this.qty = new Float64Array(cap);
    this.head = new Int32Array(cap);
    this.tail = new Int32Array(cap);
    this.count = new Int32Array(cap);
    this.prev = new Int32Array(cap);
    this.next = new Int32Array(cap);
    this.left = new Int32Array(cap);
    this.right = new Int32Array(cap);
    this.parent = new Int32Array(cap);
    this.prio = new Int32Array(cap);
    this.side = new Uint8Array(cap);
  }

  /** Starts a command: its changes are recorded afresh. */
  beginCommand(): void {
    this.touched = NIL;
    this.touchedCount = 0;
    this.commands++;
  }

  /** Call before changing level l's quantity: records its quantity before the change. */
  touch(l: number): void {
    // Small enough to inline at every call site; the record itself is out of line.
    if (l !== this.touched) this.record(l);
  }

  private record(l: number): void {
    this.touched = l;
    const i = this.touchedCount;
    if (i === this.touchedSlot.length) this.growTouched();
    this.touchedSlot[i] = l;
    // -price for a bid (side 0), +price for an ask (side 1), without a branch on the side.
    this.touchedKey[i] = this.price[l] * (2 * this.side[l] - 1);
    this.touchedBefore[i] = this.qty[l];
    this.touchedCount = i + 1;
  }

  private growTouched(): void {
    const cap = this.touchedSlot.length * 2;
    this.touchedSlot = growI32(this.touchedSlot, cap);
    this.touchedKey = growF64(this.touchedKey, cap);
    this.touchedBefore = growF64(this.touchedBefore, cap);
  }

  /** Quantity at (side, price) now, read from slot l while it still holds that level. */
  qtyNow(l: number, side: number, price: number): number {
    // A slot with orders is live; a freed slot has none (a level is dropped when its last order goes).
    if (this.count[l] > 0 && this.side[l] === side && this.price[l] === price) return this.qty[l];
    return this.levelQty(side, price);
  }

  /** Resting quantity at `price` on `side`, 0 when there is no such level. */
  levelQty(side: number, price: number): number {
    if (side !== 0 && side !== 1) return 0;
    const sgn = side === BUY ? -1 : 1;
    const key = sgn * price;
    for (let n = this.root[side]; n !== NIL;) {
      const k = sgn * this.price[n];
      if (k === key) return this.qty[n];
      n = key < k ? this.left[n] : this.right[n];
    }
    return 0;
  }

  /** The level of `price` on `side`, created (and linked in price order) if absent. */
  levelFor(side: number, price: number): number {
    const sgn = side === BUY ? -1 : 1;
    const key = sgn * price;
    let pred = NIL;
    let l = this.best[side];
    for (let steps = 0; l !== NIL; steps++) {
      if (steps === FINGER) return this.levelForSlow(side, price, key, sgn);
      const k = sgn * this.price[l];
      if (k === key) return l;
      if (k > key) break;
      pred = l;
      l = this.next[l];
    }
    return this.add(side, price, pred, l);
  }

  /** Like levelFor, walking from a live level of the side that is probably near the price. */
  levelNear(side: number, price: number, hint: number): number {
    const sgn = side === BUY ? -1 : 1;
    const key = sgn * price;
    const hk = sgn * this.price[hint];
    if (hk === key) return hint;
    if (key > hk) {
      // Behind the hint: walk toward worse prices.
      let pred = hint;
      let l = this.next[hint];
      for (let steps = 0; steps < FINGER; steps++) {
        if (l === NIL) return this.add(side, price, pred, NIL);
        const k = sgn * this.price[l];
        if (k === key) return l;
        if (k > key) return this.add(side, price, pred, l);
        pred = l;
        l = this.next[l];
      }
    } else {
      let succ = hint;
      let l = this.prev[hint];
      for (let steps = 0; steps < FINGER; steps++) {
        if (l === NIL) return this.add(side, price, NIL, succ);
        const k = sgn * this.price[l];
        if (k === key) return l;
        if (k < key) return this.add(side, price, l, succ);
        succ = l;
        l = this.prev[l];
      }
    }
    return this.levelForSlow(side, price, key, sgn);
  }

  private levelForSlow(side: number, price: number, key: number, sgn: number): number {
    let n = this.root[side];
    let pred = NIL;
    let succ = NIL;
    while (n !== NIL) {
      const k = sgn * this.price[n];
      if (k === key) return n;
      if (key < k) {
        succ = n;
        n = this.left[n];
      } else {
        pred = n;
        n = this.right[n];
      }
    }
    return this.add(side, price, pred, succ);
  }

  /** Creates an empty level between its in-order neighbours pred (better) and succ (worse). */
  add(side: number, price: number, pred: number, succ: number): number {
    let l = this.freeHead;
    if (l !== NIL) this.freeHead = this.next[l];
    else {
      if (this.top === this.cap) this.grow(this.cap * 2);
      l = this.top++;
    }
    this.price[l] = price;
    this.qty[l] = 0;
    this.count[l] = 0;
    this.head[l] = this.tail[l] = NIL;
    this.side[l] = side;
    // A freed slot reused within the command is a new level: not recorded yet.
    this.touched = NIL;
    this.prev[l] = pred;
    this.next[l] = succ;
    if (pred === NIL) this.best[side] = l;
    else this.next[pred] = l;
    if (succ !== NIL) this.prev[succ] = l;
    this.sideCount[side]++;
    // Treap: attach as a leaf next to an in-order neighbour, then rotate up by priority.
    let x = this.rng;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.rng = x;
    this.prio[l] = x & 0x7fffffff;
    this.left[l] = this.right[l] = NIL;
    if (pred === NIL && succ === NIL) {
      this.root[side] = l;
      this.parent[l] = NIL;
    } else if (pred !== NIL && this.right[pred] === NIL) {
      this.right[pred] = l;
      this.parent[l] = pred;
    } else {
      this.left[succ] = l;
      this.parent[l] = succ;
    }
    for (let p = this.parent[l]; p !== NIL && this.prio[p] < this.prio[l]; p = this.parent[l]) {
      if (this.left[p] === l) this.rotateRight(side, p);
      else this.rotateLeft(side, p);
    }
    return l;
  }

  /** Unlinks an (empty) level and frees its slot. */
  remove(l: number): void {
    const side = this.side[l];
    const p = this.prev[l];
    const n = this.next[l];
    if (p === NIL) this.best[side] = n;
    else this.next[p] = n;
    if (n !== NIL) this.prev[n] = p;
    this.sideCount[side]--;
    // Treap: rotate down (higher-priority child up) until a leaf, then detach.
    for (;;) {
      const a = this.left[l];
      const b = this.right[l];
      if (a === NIL && b === NIL) break;
      if (b === NIL || (a !== NIL && this.prio[a] > this.prio[b])) this.rotateRight(side, l);
      else this.rotateLeft(side, l);
    }
    const par = this.parent[l];
    if (par === NIL) this.root[side] = NIL;
    else if (this.left[par] === l) this.left[par] = NIL;
    else this.right[par] = NIL;
    this.next[l] = this.freeHead;
    this.freeHead = l;
  }

  /** Lifts p's left child into p's place. */
  private rotateRight(side: number, p: number): void {
    const x = this.left[p];
    const b = this.right[x];
    this.left[p] = b;
    if (b !== NIL) this.parent[b] = p;
    const g = this.parent[p];
    this.parent[x] = g;
    if (g === NIL) this.root[side] = x;
    else if (this.left[g] === p) this.left[g] = x;
    else this.right[g] = x;
    this.right[x] = p;
    this.parent[p] = x;
  }

  /** Lifts p's right child into p's place. */
  private rotateLeft(side: number, p: number): void {
    const x = this.right[p];
    const b = this.left[x];
    this.right[p] = b;
    if (b !== NIL) this.parent[b] = p;
    const g = this.parent[p];
    this.parent[x] = g;
    if (g === NIL) this.root[side] = x;
    else if (this.left[g] === p) this.left[g] = x;
    else this.right[g] = x;
    this.left[x] = p;
    this.parent[p] = x;
  }

  private grow(cap: number): void {
    this.price = growF64(this.price, cap);
    this.qty = growF64(this.qty, cap);
    this.head = growI32(this.head, cap);
    this.tail = growI32(this.tail, cap);
    this.count = growI32(this.count, cap);
    this.prev = growI32(this.prev, cap);
    this.next = growI32(this.next, cap);
    this.left = growI32(this.left, cap);
    this.right = growI32(this.right, cap);
    this.parent = growI32(this.parent, cap);
    this.prio = growI32(this.prio, cap);
    this.side = growU8(this.side, cap);
    this.cap = cap;
  }
}
