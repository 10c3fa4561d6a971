import { BookOrderType, BookSide, BookStpMode, BookTimeInForce, NewBookOrder, OrderBook } from '@perp/domain';

/** Op codes of the stream (the first element of each JSON line). */
export const Op = { L: 0, I: 1, F: 2, P: 3, M: 4, C: 5, A: 6 } as const;
const CODES: Record<string, number> = Op;
export const OP_NAMES = ['L', 'I', 'F', 'P', 'M', 'C', 'A'] as const;

/** A parsed stream, column by column, so the timed loops read numbers only. */
export interface OpStream {
  length: number;
  kind: Uint8Array;
  id: Float64Array;
  side: Uint8Array;
  price: Float64Array;
  qty: Float64Array;
  description: string;
}

function alloc(n: number): OpStream {
  return {
    length: 0,
    kind: new Uint8Array(n),
    id: new Float64Array(n),
    side: new Uint8Array(n),
    price: new Float64Array(n),
    qty: new Float64Array(n),
    description: '',
  };
}

function push(s: OpStream, kind: number, id: number, side: number, price: number, qty: number): void {
  const i = s.length++;
  s.kind[i] = kind;
  s.id[i] = id;
  s.side[i] = side;
  s.price[i] = price;
  s.qty[i] = qty;
}

/**
 * Newline-delimited JSON, one op a line: ["L"|"I"|"F"|"P",id,side,price,qty], ["M",id,side,0,qty],
 * ["C",id], ["A",id,price,qty]; side "buy" or "sell"; prices in ticks, quantities in lots.
 */
export function parseOps(text: string, source: string): OpStream {
  const lines = text.split('\n');
  const s = alloc(lines.length);
  lines.forEach((raw, n) => {
    const line = raw.trim();
    if (!line) return;
    const a = JSON.parse(line) as unknown[];
    const kind = CODES[String(a[0])];
    const bad = () => new Error(`${source}:${n + 1}: bad op ${line}`);
    if (kind === undefined || typeof a[1] !== 'number') throw bad();
    if (kind === Op.C) push(s, kind, a[1], 0, 0, 0);
    else if (kind === Op.A) push(s, kind, a[1], 0, Number(a[2]), Number(a[3]));
    else {
      if (a[2] !== 'buy' && a[2] !== 'sell') throw bad();
      push(s, kind, a[1], a[2] === 'buy' ? 0 : 1, Number(a[3]), Number(a[4]));
    }
  });
  const counts = OP_NAMES.map(
    (name, k) => `${name} ${s.kind.subarray(0, s.length).filter((x) => x === k).length}`,
  );
  s.description = `${source}: ${s.length} ops (${counts.join(', ')})`;
  return s;
}

/** mulberry32: small, fast, seeded. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Live order ids, for picking a random one in O(1) (generation only). */
class LiveSet {
  ids: number[] = [];
  private at = new Map<number, number>();
  add(id: number): void {
    if (this.at.has(id)) return;
    this.at.set(id, this.ids.length);
    this.ids.push(id);
  }
  delete(id: number): void {
    const i = this.at.get(id);
    if (i === undefined) return;
    const last = this.ids.pop() as number;
    if (last !== id) {
      this.ids[i] = last;
      this.at.set(last, i);
    }
    this.at.delete(id);
  }
  get size(): number {
    return this.ids.length;
  }
}

/**
 * The default stream: seeded, half of it each of
 *
 * A. rest/cancel/take — the day of a market maker and its takers. Per op: 40% GTC limit (90% passive
 *    1-20 ticks behind the top on its side, 10% crossing by 0-3 ticks), 22% cancel of a live order
 *    (plus 3% of ids never seen), 10% IOC and 5% FOK crossing by 0-5 ticks, 5% market, 7% post-only
 *    0-4 ticks behind the top (some would take and are rejected), 8% amend of a live order (half
 *    quantity decreases in place, a quarter price moves of 1-3 ticks, a quarter quantity increases);
 *    the mid price random-walks; while the book is below `target` orders the cancels become new
 *    limit orders, so it hovers around the target.
 * B. exchange-core's move-heavy mix (its TestOrdersGenerator): GTC orders spread up to 5% around
 *    the last trade price fill the book to `target` orders; then per op, out of 40 (out of 10 while
 *    the book is below target): 2 new orders (GTC while below target, else an IOC that sweeps),
 *    1 cancel, 1 reduce (amend to a smaller quantity), the rest moves (amend to a price 1% of the way
 *    to the last trade price, at least one tick) — at target about 5% new, 2.5% cancel, 2.5% reduce
 *    and 90% move.
 *
 * Quantities 1 + rand(6)*rand(6)*rand(6) lots (1-126, mostly small) as in exchange-core. One user;
 * the bench runs it without self-trade prevention. Generation runs the engine to know which orders
 * are live and the last trade price; it is not timed.
 */
export function defaultOps(total: number, target: number, seed = 42): OpStream {
  const s = alloc(total);
  const rand = rng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const size = () => 1 + int(6) * int(6) * int(6);
  const book = new OrderBook({ initialCapacity: target * 2 });
  const live = new LiveSet();
  const cmd: NewBookOrder = {
    orderId: 0,
    user: 1,
    side: BookSide.BUY,
    type: BookOrderType.LIMIT,
    timeInForce: BookTimeInForce.GTC,
    price: 0,
    quantity: 0,
    reduceOnly: false,
    stp: BookStpMode.NONE,
  };
  let nextId = 1;
  let mid = 100_000;
  let lastTrade = mid;

  const track = (id: number) => {
    const ev = book.events;
    for (let i = 0; i < ev.count; i++) {
      const k = ev.kind[i];
      if (k === 3) {
        lastTrade = ev.price[i];
        if (ev.makerLeaves[i] === 0) live.delete(ev.makerOrderId[i]);
      } else if (k === 4 || k === 5) live.delete(ev.orderId[i]);
    }
    if (book.order(id)) live.add(id);
    else live.delete(id);
  };
  const emit = (kind: number, id: number, side: number, price: number, qty: number) => {
    push(s, kind, id, side, price, qty);
    if (kind === Op.C) book.cancel(1, id);
    else if (kind === Op.A) book.amend(1, id, price, qty);
    else {
      cmd.orderId = id;
      cmd.side = side as BookSide;
      cmd.type = kind === Op.M ? BookOrderType.MARKET : BookOrderType.LIMIT;
      cmd.timeInForce = [BookTimeInForce.GTC, BookTimeInForce.IOC, BookTimeInForce.FOK, BookTimeInForce.GTX][
        kind === Op.M ? 1 : kind
      ];
      cmd.price = price;
      cmd.quantity = qty;
      book.place(cmd);
    }
    track(id);
  };
  const top = (side: number) => {
    const p = book.bestPrice(side as BookSide);
    return p || (side === 0 ? mid - 1 : mid + 1);
  };
  const randomLive = () => live.ids[int(live.size)];

  // A. rest/cancel/take
  const half = total >> 1;
  while (s.length < half) {
    mid += int(3) - 1;
    const side = int(2);
    const sign = side === 0 ? -1 : 1;
    let r = int(100);
    // Below target the cancels become new orders, so the book refills.
    if (r >= 40 && r < 65 && live.size < target) r = 0;
    if (r < 40 || live.size === 0) {
      if (int(10) === 0) emit(Op.L, nextId++, side, top(side ^ 1) - sign * int(4), size());
      else emit(Op.L, nextId++, side, Math.max(1, top(side) + sign * (1 + int(20))), size());
    } else if (r < 62) emit(Op.C, randomLive(), 0, 0, 0);
    else if (r < 65) emit(Op.C, nextId + 1_000_000_000, 0, 0, 0);
    else if (r < 75) emit(Op.I, nextId++, side, top(side ^ 1) - sign * int(6), size());
    else if (r < 80) emit(Op.F, nextId++, side, top(side ^ 1) - sign * int(6), size());
    else if (r < 85) emit(Op.M, nextId++, side, 0, size());
    else if (r < 92) emit(Op.P, nextId++, side, top(side) + sign * (int(5) - 1), size());
    else {
      const id = randomLive();
      const o = book.order(id);
      if (!o) continue;
      const a = int(4);
      const dir = o.side === 0 ? -1 : 1;
      if (a < 2) emit(Op.A, id, 0, o.price, Math.max(1, o.quantity - 1 - int(o.quantity)));
      else if (a === 2) emit(Op.A, id, 0, Math.max(1, o.price + dir * (int(7) - 3 || 1)), o.quantity);
      else emit(Op.A, id, 0, o.price, o.quantity + 1 + int(10));
    }
  }

  // B. exchange-core: GTC near the last trade price until the book is full, then mostly moves.
  const dev = 5_000;
  let filled = false;
  const gtc = (side: number) => {
    const d = 1 + Math.floor(rand() * rand() * dev);
    let p = 0;
    for (let i = 0; i < 4; i++) p += int(d);
    p = Math.floor(p / 4) * 2 - d;
    if (p > 0 !== (side === 1)) p = -p;
    emit(Op.L, nextId++, side, Math.max(1, lastTrade + p), size());
  };
  while (s.length < total) {
    const side = int(2);
    const lack = target - live.size;
    if (lack <= 0) filled = true;
    const fastFill = !filled || lack > Math.min(512, (target * 3) >> 2);
    const q = int(lack > 0 ? (fastFill ? 2 : 10) : 40);
    if (q < 2 || live.size === 0) {
      if (lack > 0 || live.size === 0) gtc(side);
      else
        emit(
          Op.I,
          nextId++,
          side,
          side === 0 ? lastTrade + 2 * dev : Math.max(1, lastTrade - 2 * dev),
          size(),
        );
      continue;
    }
    const id = randomLive();
    const o = book.order(id);
    if (!o) continue;
    if (q === 2) emit(Op.C, id, 0, 0, 0);
    else if (q === 3) {
      const left = o.quantity - 1 - int(o.quantity);
      if (left > 0) emit(Op.A, id, 0, o.price, left);
      else emit(Op.C, id, 0, 0, 0);
    } else {
      const move = (lastTrade - o.price) * 0.01;
      const step =
        o.price > lastTrade ? Math.floor(move) : o.price < lastTrade ? Math.ceil(move) : int(2) * 2 - 1;
      emit(Op.A, id, 0, Math.max(1, o.price + step), o.quantity);
    }
  }

  const counts = OP_NAMES.map((name, k) => `${name} ${s.kind.filter((x) => x === k).length}`);
  s.description =
    `default stream (seed ${seed}): ${total} ops = ${half} rest/cancel/take + ${total - half} ` +
    `exchange-core move-heavy, book target ${target} orders (${counts.join(', ')})`;
  return s;
}
