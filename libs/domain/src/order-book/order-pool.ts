import { IntMap } from './int-map';
import type { PriceLevels } from './price-levels';
import { growF64, growI32, growU8 } from './typed-arrays';

/**
 * Constants shared by the book's modules. Each module copies what it uses into module-local consts:
 * an imported binding compiles to a getter call on the module object.
 */
export const Slot: Readonly<Record<'NIL' | 'F_SELL' | 'F_RO' | 'F_POST' | 'STP_SHIFT', number>> = {
  /** No slot: end of a list, absent order, level or user. */
  NIL: -1,
  // Order flag bits: side, reduce-only, post-only, STP mode in bits 3-4.
  F_SELL: 1,
  F_RO: 2,
  F_POST: 4,
  STP_SHIFT: 3,
};

const NIL = Slot.NIL;

/**
 * Resting orders as struct-of-arrays columns indexed by slot (no object per order), grown by
 * doubling. Each order sits in two intrusive doubly-linked lists: its level's FIFO (`prev`/`next`,
 * heads in PriceLevels) and its user's list (`uPrev`/`uNext`, heads in UserPool). Free slots are
 * chained through `next`.
 */
export class OrderPool {
  cap: number;
  /** Slots ever handed out; every slot below is live or free. */
  top = 0;
  /** Live orders. */
  count = 0;
  private freeHead = NIL;
  id: Float64Array;
  price: Float64Array;
  qty: Float64Array;
  /** Priority clock at the last time the order joined the back of its level. */
  time: Float64Array;
  /** User slot. */
  user: Int32Array;
  prev: Int32Array;
  next: Int32Array;
  uPrev: Int32Array;
  uNext: Int32Array;
  level: Int32Array;
  flags: Uint8Array;
  cid: (string | undefined)[];
  /** Order id -> slot. */
  readonly ids: IntMap;
  /** Resting reduce-only orders per side. */
  readonly reduceOnly = new Int32Array(2);
  /** The priority clock: ticks each time an order joins the back of a level. */
  clock = 0;

  constructor(cap: number) {
    this.cap = cap;
    this.id = new Float64Array(cap);
    this.price = new Float64Array(cap);
    this.qty = new Float64Array(cap);
    this.time = new Float64Array(cap);
    this.user = new Int32Array(cap);
    this.prev = new Int32Array(cap);
    this.next = new Int32Array(cap);
    this.uPrev = new Int32Array(cap);
    this.uNext = new Int32Array(cap);
    this.level = new Int32Array(cap);
    this.flags = new Uint8Array(cap);
    this.cid = new Array<string | undefined>(cap).fill(undefined);
    this.ids = new IntMap(cap);
  }

  /** A slot for a new order: a freed one, or the next unused one. */
  alloc(): number {
    let o = this.freeHead;
    if (o !== NIL) this.freeHead = this.next[o];
    else {
      if (this.top === this.cap) this.grow(this.cap * 2);
      o = this.top++;
    }
    return o;
  }

  free(o: number): void {
    this.next[o] = this.freeHead;
    this.freeHead = o;
  }

  /** Puts o at the back of level l's FIFO. */
  appendToLevel(o: number, l: number, levels: PriceLevels): void {
    const t = levels.tail[l];
    this.prev[o] = t;
    this.next[o] = NIL;
    this.level[o] = l;
    if (t === NIL) levels.head[l] = o;
    else this.next[t] = o;
    levels.tail[l] = o;
  }

  unlinkFromLevel(o: number, l: number, levels: PriceLevels): void {
    const p = this.prev[o];
    const n = this.next[o];
    if (p === NIL) levels.head[l] = n;
    else this.next[p] = n;
    if (n === NIL) levels.tail[l] = p;
    else this.prev[n] = p;
  }

  /** Puts o at the back of user u's list. */
  appendToUser(o: number, u: number, users: UserPool): void {
    const t = users.tail[u];
    this.uPrev[o] = t;
    this.uNext[o] = NIL;
    if (t === NIL) users.head[u] = o;
    else this.uNext[t] = o;
    users.tail[u] = o;
  }

  unlinkFromUser(o: number, u: number, users: UserPool): void {
    const p = this.uPrev[o];
    const n = this.uNext[o];
    if (p === NIL) users.head[u] = n;
    else this.uNext[p] = n;
    if (n === NIL) users.tail[u] = p;
    else this.uPrev[n] = p;
  }

  private grow(cap: number): void {
    this.id = growF64(this.id, cap);
    this.price = growF64(this.price, cap);
    this.qty = growF64(this.qty, cap);
    this.time = growF64(this.time, cap);
    this.user = growI32(this.user, cap);
    this.prev = growI32(this.prev, cap);
    this.next = growI32(this.next, cap);
    this.uPrev = growI32(this.uPrev, cap);
    this.uNext = growI32(this.uNext, cap);
    this.level = growI32(this.level, cap);
    this.flags = growU8(this.flags, cap);
    for (let i = this.cap; i < cap; i++) this.cid.push(undefined);
    this.cap = cap;
  }
}

/**
 * Users seen by the book, by slot (never freed: a user keeps its position). Per-side values sit at
 * 2u + side. Each user heads the list of its resting orders, oldest priority first.
 */
export class UserPool {
  cap = 16;
  count = 0;
  id: Float64Array = new Float64Array(16);
  /** Signed position in lots. */
  pos: Float64Array = new Float64Array(16);
  /** Resting reduce-only quantity per side. */
  ro: Float64Array = new Float64Array(32);
  /** Resting orders per side. */
  cnt: Int32Array = new Int32Array(32);
  head: Int32Array = new Int32Array(16);
  tail: Int32Array = new Int32Array(16);
  /** Client order id -> order slot, for users that gave one. */
  cids: (Map<string, number> | undefined)[] = [];
  // scratch of the FOK dry run (Matcher.fillable)
  simStamp: Int32Array = new Int32Array(16);
  simClose: Float64Array = new Float64Array(16);
  simRo: Float64Array = new Float64Array(16);
  private readonly idx = new IntMap();
  private lastId = NaN;
  private lastU = NIL;

  /** The slot of a user, or NIL if the book never saw them. */
  lookup(user: number): number {
    return this.idx.get(user);
  }

  /** The slot of a user, added if new (the last one is cached: a taker often sends in bursts). */
  intern(user: number): number {
    if (user === this.lastId) return this.lastU;
    let u = this.idx.get(user);
    if (u === NIL) u = this.add(user);
    this.lastId = user;
    this.lastU = u;
    return u;
  }

  add(user: number): number {
    const u = this.count++;
    if (u === this.cap) {
      const cap = this.cap * 2;
      this.id = growF64(this.id, cap);
      this.pos = growF64(this.pos, cap);
      this.ro = growF64(this.ro, 2 * cap);
      this.cnt = growI32(this.cnt, 2 * cap);
      this.head = growI32(this.head, cap);
      this.tail = growI32(this.tail, cap);
      this.simStamp = growI32(this.simStamp, cap);
      this.simClose = growF64(this.simClose, cap);
      this.simRo = growF64(this.simRo, cap);
      this.cap = cap;
    }
    this.id[u] = user;
    this.pos[u] = 0;
    this.ro[2 * u] = this.ro[2 * u + 1] = 0;
    this.cnt[2 * u] = this.cnt[2 * u + 1] = 0;
    this.head[u] = this.tail[u] = NIL;
    this.cids.push(undefined);
    this.idx.set(user, u);
    return u;
  }
}
