import { OrderPool, Slot, UserPool } from './order-pool';
import { PriceLevels } from './price-levels';
import { BookMarketState } from './types';

const { NIL, F_RO } = Slot;
const MAGIC = 0x4f42534e; // "OBSN"
const VERSION = 1;
const HEADER = 16;

/** The book's scalars that a snapshot keeps besides its orders, users and levels. */
export interface SnapshotHeader {
  seq: number;
  state: BookMarketState;
  maxLongOi: number;
  maxShortOi: number;
  longOi: number;
  shortOi: number;
  maxOrderQty: number;
  maxPrice: number;
}

/** A checked snapshot, header read, waiting to be loaded into an empty book of `orders` capacity. */
export interface OpenedSnapshot {
  readonly header: SnapshotHeader;
  readonly orders: number;
  readonly bytes: Uint8Array;
}

/** Byte offsets of a snapshot's sections (each 8-byte aligned for typed-array views). */
function snapshotLayout(users: number, levels: number, orders: number) {
  const pad = (x: number) => Math.ceil(x / 8) * 8;
  const usersAt = HEADER * 8;
  const levelsAt = usersAt + 16 * users;
  const ordersAt = levelsAt + pad(12 * levels);
  const cidsAt = ordersAt + pad(25 * orders);
  return { users: usersAt, levels: levelsAt, orders: ordersAt, cids: cidsAt };
}

/**
 * The whole book in one compact buffer: header, users (id, position), levels best first per side
 * (price, order count), orders in priority order (id, open quantity, user, flags), each user's
 * orders in their list order, client order ids as JSON. About 25 bytes per order.
 * Treap shapes are not kept: they do not change behaviour.
 */
export function encodeSnapshot(
  h: SnapshotHeader,
  orders: OrderPool,
  users: UserPool,
  levels: PriceLevels,
): Uint8Array {
  const n = orders.count;
  // Users worth keeping: a position or an open order.
  const keep = new Int32Array(users.count).fill(NIL);
  let nu = 0;
  for (let u = 0; u < users.count; u++) if (users.pos[u] !== 0 || users.head[u] !== NIL) keep[u] = nu++;
  const nl = levels.sideCount[0] + levels.sideCount[1];
  const layout = snapshotLayout(nu, nl, n);
  const slotIndex = new Int32Array(orders.top);
  const cids: (number | string)[] = [];
  const buf = new ArrayBuffer(layout.cids);
  const head = new Float64Array(buf, 0, HEADER);
  const usersId = new Float64Array(buf, layout.users, nu);
  const usersPos = new Float64Array(buf, layout.users + 8 * nu, nu);
  const levelPrice = new Float64Array(buf, layout.levels, nl);
  const levelCount = new Int32Array(buf, layout.levels + 8 * nl, nl);
  const orderId = new Float64Array(buf, layout.orders, n);
  const orderQty = new Float64Array(buf, layout.orders + 8 * n, n);
  const orderUser = new Int32Array(buf, layout.orders + 16 * n, n);
  const userOrder = new Int32Array(buf, layout.orders + 20 * n, n);
  const orderFlags = new Uint8Array(buf, layout.orders + 24 * n, n);
  for (let u = 0; u < users.count; u++) {
    const k = keep[u];
    if (k === NIL) continue;
    usersId[k] = users.id[u];
    usersPos[k] = users.pos[u];
  }
  let li = 0;
  let oi = 0;
  for (let side = 0; side < 2; side++)
    for (let l = levels.best[side]; l !== NIL; l = levels.next[l]) {
      levelPrice[li] = levels.price[l];
      levelCount[li++] = levels.count[l];
      for (let o = levels.head[l]; o !== NIL; o = orders.next[o]) {
        orderId[oi] = orders.id[o];
        orderQty[oi] = orders.qty[o];
        orderUser[oi] = keep[orders.user[o]];
        orderFlags[oi] = orders.flags[o];
        const cid = orders.cid[o];
        if (cid !== undefined) cids.push(oi, cid);
        slotIndex[o] = oi++;
      }
    }
  let ui = 0;
  for (let u = 0; u < users.count; u++)
    for (let o = users.head[u]; o !== NIL; o = orders.uNext[o]) userOrder[ui++] = slotIndex[o];
  const cidBytes = cids.length ? new TextEncoder().encode(JSON.stringify(cids)) : new Uint8Array(0);
  head.set([
    MAGIC,
    VERSION,
    h.seq,
    h.state,
    h.maxLongOi,
    h.maxShortOi,
    h.longOi,
    h.shortOi,
    h.maxOrderQty,
    h.maxPrice,
    nu,
    levels.sideCount[0],
    levels.sideCount[1],
    n,
    cidBytes.length,
    orders.clock,
  ]);
  const out = new Uint8Array(layout.cids + cidBytes.length);
  out.set(new Uint8Array(buf));
  out.set(cidBytes, layout.cids);
  return out;
}

/** Checks a snapshot's format and length and reads its header (the book's settings and scalars). */
export function openSnapshot(bytes: Uint8Array): OpenedSnapshot {
  // Typed views need 8-byte alignment: copy only when the caller's bytes are not aligned.
  const aligned = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  if (aligned.byteLength < HEADER * 8) throw new Error('order book snapshot: truncated');
  const head = new Float64Array(aligned.buffer, aligned.byteOffset, HEADER);
  if (head[0] !== MAGIC || head[1] !== VERSION) throw new Error('order book snapshot: unknown format');
  const layout = snapshotLayout(head[10], head[11] + head[12], head[13]);
  if (aligned.byteLength !== layout.cids + head[14]) throw new Error('order book snapshot: bad length');
  return {
    header: {
      seq: head[2],
      state: head[3] as BookMarketState,
      maxLongOi: head[4],
      maxShortOi: head[5],
      longOi: head[6],
      shortOi: head[7],
      maxOrderQty: head[8],
      maxPrice: head[9],
    },
    orders: head[13],
    bytes: aligned,
  };
}

/**
 * Fills empty pools (orders sized for the snapshot's count) with an opened snapshot: same orders in
 * the same priority, users and positions, levels, user lists and client ids.
 */
export function loadSnapshot(
  snap: OpenedSnapshot,
  orders: OrderPool,
  users: UserPool,
  levels: PriceLevels,
): void {
  const buf = snap.bytes.buffer;
  const base = snap.bytes.byteOffset;
  const head = new Float64Array(buf, base, HEADER);
  const nu = head[10];
  const nBid = head[11];
  const nl = nBid + head[12];
  const n = head[13];
  const layout = snapshotLayout(nu, nl, n);
  const usersId = new Float64Array(buf, base + layout.users, nu);
  const usersPos = new Float64Array(buf, base + layout.users + 8 * nu, nu);
  for (let i = 0; i < nu; i++) users.pos[users.add(usersId[i])] = usersPos[i];
  const levelPrice = new Float64Array(buf, base + layout.levels, nl);
  const levelCount = new Int32Array(buf, base + layout.levels + 8 * nl, nl);
  const at = base + layout.orders;
  orders.id.set(new Float64Array(buf, at, n));
  orders.qty.set(new Float64Array(buf, at + 8 * n, n));
  orders.user.set(new Int32Array(buf, at + 16 * n, n));
  const userOrder = new Int32Array(buf, at + 20 * n, n);
  orders.flags.set(new Uint8Array(buf, at + 24 * n, n));
  orders.top = n;
  orders.count = n;
  const { id: oId, qty: oQty, user: oUser, flags: oFlags, price: oPrice, prev, next, level, time } = orders;
  const { cnt: uCnt, ro: uRo } = users;
  let o = 0;
  let worst = NIL;
  for (let li = 0; li < nl; li++) {
    const side = li < nBid ? 0 : 1;
    if (li === nBid) worst = NIL;
    // Levels come best first, so each new one is the worst so far: appended at the end.
    const l = levels.add(side, levelPrice[li], worst, NIL);
    worst = l;
    const end = o + levelCount[li];
    let qty = 0;
    levels.head[l] = o;
    levels.tail[l] = end - 1;
    levels.count[l] = end - o;
    for (let p = NIL; o < end; p = o++) {
      oPrice[o] = levelPrice[li];
      prev[o] = p;
      next[o] = o + 1 === end ? NIL : o + 1;
      level[o] = l;
      time[o] = o + 1;
      qty += oQty[o];
      const u = oUser[o];
      uCnt[2 * u + side]++;
      if (oFlags[o] & F_RO) {
        uRo[2 * u + side] += oQty[o];
        orders.reduceOnly[side]++;
      }
      orders.ids.set(oId[o], o);
    }
    levels.qty[l] = qty;
  }
  orders.clock = Math.max(head[15], n);
  for (let i = 0; i < n; i++) orders.appendToUser(userOrder[i], oUser[userOrder[i]], users);
  if (head[14] > 0) {
    const cids = JSON.parse(new TextDecoder().decode(snap.bytes.subarray(layout.cids))) as (
      number | string
    )[];
    for (let i = 0; i < cids.length; i += 2) {
      const slot = cids[i] as number;
      const cid = cids[i + 1] as string;
      const u = oUser[slot];
      orders.cid[slot] = cid;
      let m = users.cids[u];
      if (m === undefined) users.cids[u] = m = new Map();
      m.set(cid, slot);
    }
  }
}
