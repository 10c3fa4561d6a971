import { BookEventBuffer } from './events';
import { Slot } from './order-pool';
import { RestingOrders } from './resting-orders';
import { BookEventFlag, BookEventKind, BookReason, BookSide, BookStpMode } from './types';

// Module-local copies: an imported binding compiles to a getter call on the module object.
const Reason = { ...BookReason };
const Kind = { ...BookEventKind };
const Stp = { ...BookStpMode };
const Flag = { ...BookEventFlag };
const { NIL, F_SELL, F_RO, STP_SHIFT } = Slot;
const BUY = BookSide.BUY;
const SELL = BookSide.SELL;

/**
 * The matcher under OrderBook's commands: trades a taker against the opposite side in price-time
 * priority, moves positions and open interest with each fill (and splits it into close and open),
 * then restores the reduce-only rule: a user's resting reduce-only quantity of a side never exceeds
 * the position it can close (trimming worst priority first, reason REDUCE_ONLY_TRIM), so a
 * reduce-only order can never open a position. Also the FOK dry run and the open-interest caps.
 */
export abstract class Matcher extends RestingOrders {
  /** Events of the last command. */
  readonly events = new BookEventBuffer();
  protected _seq = 0;
  protected _longOi = 0;
  protected _shortOi = 0;
  protected maxLongOi: number;
  protected maxShortOi: number;
  /** Marks users already copied into the FOK dry run's scratch columns. */
  private stamp = 0;

  protected constructor(initialCapacity: number | undefined, maxLongOi: number, maxShortOi: number) {
    super(initialCapacity);
    this.maxLongOi = maxLongOi;
    this.maxShortOi = maxShortOi;
  }

  /** Sequence number of the last event emitted. */
  get seq(): number {
    return this._seq;
  }
  get longOi(): number {
    return this._longOi;
  }
  get shortOi(): number {
    return this._shortOi;
  }

  /** Trades `qty` against the opposite side; returns what is left (0 also when STP expired it). */
  protected match(
    id: number,
    u: number,
    side: number,
    isMarket: boolean,
    limit: number,
    qty: number,
    flags: number,
  ): number {
    const { events: ev, orders, users, levels } = this;
    const opp = side ^ 1;
    const stp = (flags >> STP_SHIFT) & 3;
    const userId = users.id[u];
    const uPos = users.pos;
    let left = qty;
    while (left > 0) {
      const lvl = levels.best[opp];
      if (lvl === NIL) break;
      const px = levels.price[lvl];
      if (!isMarket && (side === BUY ? px > limit : px < limit)) break;
      const m = levels.head[lvl];
      const mu = orders.user[m];
      if (mu === u && stp !== Stp.NONE) {
        if (stp !== Stp.EXPIRE_TAKER) {
          this.emitGone(Kind.EXPIRED, m, Reason.SELF_TRADE);
          this.removeOrder(m);
        }
        if (stp !== Stp.EXPIRE_MAKER) {
          ev.order(Kind.EXPIRED, ++this._seq, Reason.SELF_TRADE, 0, id, userId, side, limit, left, 0);
          return 0;
        }
        continue;
      }
      const mq = orders.qty[m];
      const q = left < mq ? left : mq;
      // Maker leg first, then taker leg: the order in which risk settles a fill's two copies (the
      // router sends the maker's first), so a self-trade (STP NONE) splits open and close alike.
      let p = uPos[mu];
      let mClose: number;
      if (opp === BUY) {
        mClose = p < 0 ? (q < -p ? q : -p) : 0;
        uPos[mu] = p + q;
        this._shortOi -= mClose;
        this._longOi += q - mClose;
      } else {
        mClose = p > 0 ? (q < p ? q : p) : 0;
        uPos[mu] = p - q;
        this._longOi -= mClose;
        this._shortOi += q - mClose;
      }
      p = uPos[u];
      let tClose: number;
      if (side === BUY) {
        tClose = p < 0 ? (q < -p ? q : -p) : 0;
        uPos[u] = p + q;
        this._shortOi -= tClose;
        this._longOi += q - tClose;
      } else {
        tClose = p > 0 ? (q < p ? q : p) : 0;
        uPos[u] = p - q;
        this._longOi -= tClose;
        this._shortOi += q - tClose;
      }
      left -= q;
      const mLeft = mq - q;
      levels.touch(lvl);
      levels.qty[lvl] -= q;
      const uRo = users.ro;
      if (orders.flags[m] & F_RO) uRo[2 * mu + opp] -= q;
      ev.fill(
        ++this._seq,
        id,
        userId,
        side,
        px,
        q,
        left,
        orders.id[m],
        users.id[mu],
        mLeft,
        q - tClose,
        tClose,
        q - mClose,
        mClose,
      );
      if (mLeft === 0) {
        orders.qty[m] = 0;
        this.removeOrder(m);
      } else orders.qty[m] = mLeft;
      if (uRo[2 * u] + uRo[2 * u + 1] > 0) this.trimReduceOnly(u);
      if (mu !== u && uRo[2 * mu] + uRo[2 * mu + 1] > 0) this.trimReduceOnly(mu);
    }
    return left;
  }

  /**
   * Auto-deleveraging: closes up to `lots` of `user`'s position against `counterparty`'s opposite
   * position at `price` (ticks), as one fill in which `user` takes (order `takerOrderId`) and
   * `counterparty` makes (`makerOrderId`). Reduce-only for both: it closes min(lots, |positions|)
   * and never opens or flips; positions and OI move as a fill's, then both users' resting
   * reduce-only orders are trimmed as after any fill. Events: one FILL (open 0 and leaves 0 on both
   * sides) and its trims; none when nothing can close (a position missing or not opposite, the
   * same user, lots or price not a positive integer). Returns the lots closed.
   */
  deleverage(
    takerOrderId: number,
    user: number,
    makerOrderId: number,
    counterparty: number,
    lots: number,
    price: number,
  ): number {
    const { events: ev, users } = this;
    ev.count = 0;
    this.levels.beginCommand();
    if (!Number.isSafeInteger(lots) || lots <= 0 || !Number.isSafeInteger(price) || price <= 0) return 0;
    if (!Number.isSafeInteger(takerOrderId) || !Number.isSafeInteger(makerOrderId)) return 0;
    const u = users.lookup(user);
    const c = users.lookup(counterparty);
    if (u === NIL || c === NIL || u === c) return 0;
    const pu = users.pos[u];
    const pc = users.pos[c];
    if (pu === 0 || pc === 0 || pu > 0 === pc > 0) return 0;
    const au = pu > 0 ? pu : -pu;
    const ac = pc > 0 ? pc : -pc;
    const q = lots < au ? (lots < ac ? lots : ac) : au < ac ? au : ac;
    users.pos[u] = pu > 0 ? pu - q : pu + q;
    users.pos[c] = pc > 0 ? pc - q : pc + q;
    this._longOi -= q;
    this._shortOi -= q;
    const side = pu > 0 ? SELL : BUY;
    ev.fill(++this._seq, takerOrderId, user, side, price, q, 0, makerOrderId, counterparty, 0, 0, q, 0, q);
    const uRo = users.ro;
    if (uRo[2 * u] + uRo[2 * u + 1] > 0) this.trimReduceOnly(u);
    if (uRo[2 * c] + uRo[2 * c + 1] > 0) this.trimReduceOnly(c);
    return q;
  }

  /**
   * Would a FOK order fill completely? A dry run of match(): self-trade prevention, and the
   * reduce-only trims that a maker's earlier fills in this same match would cause (they shrink that
   * maker's worst-priority reduce-only orders first, so the best remaining one keeps
   * min(its size, what is left of the user's reduce-only quantity)).
   */
  protected fillable(
    u: number,
    side: number,
    isMarket: boolean,
    limit: number,
    qty: number,
    stp: number,
  ): boolean {
    const { orders, users, levels } = this;
    const opp = side ^ 1;
    let need = qty;
    const simple = stp === Stp.NONE || users.cnt[2 * u + opp] === 0;
    if (simple && orders.reduceOnly[opp] === 0) {
      // Nothing can vanish mid-match: level totals suffice.
      for (let l = levels.best[opp]; l !== NIL; l = levels.next[l]) {
        const px = levels.price[l];
        if (!isMarket && (side === BUY ? px > limit : px < limit)) return false;
        need -= levels.qty[l];
        if (need <= 0) return true;
      }
      return false;
    }
    const stamp = ++this.stamp;
    const { simStamp, simClose, simRo } = users;
    for (let l = levels.best[opp]; l !== NIL; l = levels.next[l]) {
      const px = levels.price[l];
      if (!isMarket && (side === BUY ? px > limit : px < limit)) return false;
      for (let o = levels.head[l]; o !== NIL; o = orders.next[o]) {
        const mu = orders.user[o];
        if (mu === u) {
          if (!simple) {
            if (stp === Stp.EXPIRE_MAKER) continue;
            return false;
          }
          need -= orders.qty[o];
        } else if (users.ro[2 * mu + opp] === 0) need -= orders.qty[o];
        else {
          if (simStamp[mu] !== stamp) {
            simStamp[mu] = stamp;
            const p = users.pos[mu];
            simClose[mu] = opp === BUY ? -p : p;
            simRo[mu] = users.ro[2 * mu + opp];
          }
          let take = orders.qty[o];
          if (orders.flags[o] & F_RO) {
            if (take > simRo[mu]) take = simRo[mu];
            if (take > need) take = need;
            simRo[mu] -= take;
            simClose[mu] -= take;
          } else {
            if (take > need) take = need;
            const c = (simClose[mu] -= take);
            if (simRo[mu] > c) simRo[mu] = c > 0 ? c : 0;
          }
          need -= take;
        }
        if (need <= 0) return true;
      }
    }
    return false;
  }

  /**
   * Restores "resting reduce-only quantity of a side <= the position it can close" for a user after
   * their position moved: shrinks or cancels reduce-only orders, worst priority first.
   */
  private trimReduceOnly(u: number): void {
    const { orders, users, levels } = this;
    const pos = users.pos[u];
    for (let s = 0; s < 2; s++) {
      const allowed = s === BUY ? (pos < 0 ? -pos : 0) : pos > 0 ? pos : 0;
      while (users.ro[2 * u + s] > allowed) {
        const excess = users.ro[2 * u + s] - allowed;
        let w = NIL;
        for (let o = users.head[u]; o !== NIL; o = orders.uNext[o]) {
          const f = orders.flags[o];
          if ((f & F_RO) === 0 || (f & F_SELL) !== s) continue;
          if (w === NIL || this.worse(s, o, w)) w = o;
        }
        const q = orders.qty[w];
        if (q <= excess) {
          this.emitGone(Kind.CANCELED, w, Reason.REDUCE_ONLY_TRIM);
          this.removeOrder(w);
        } else {
          orders.qty[w] = q - excess;
          levels.touch(orders.level[w]);
          levels.qty[orders.level[w]] -= excess;
          users.ro[2 * u + s] -= excess;
          this.events.order(
            Kind.AMENDED,
            ++this._seq,
            Reason.REDUCE_ONLY_TRIM,
            Flag.KEPT_PRIORITY,
            orders.id[w],
            users.id[u],
            s,
            orders.price[w],
            q - excess,
            q - excess,
          );
        }
      }
    }
  }

  /** Is resting order a behind resting order b (same side)? */
  private worse(side: number, a: number, b: number): boolean {
    const pa = this.orders.price[a];
    const pb = this.orders.price[b];
    if (pa !== pb) return side === BUY ? pa < pb : pa > pb;
    return this.orders.time[a] > this.orders.time[b];
  }

  /** Would a limit order at `price` take liquidity now (own orders included)? */
  protected crosses(side: number, price: number): boolean {
    const l = this.levels.best[side ^ 1];
    if (l === NIL) return false;
    return side === BUY ? this.levels.price[l] <= price : this.levels.price[l] >= price;
  }

  /** Would opening `open` more lots break a cap? Checked at entry against the worst case. */
  protected exceedsOi(open: number): boolean {
    return this._longOi + open > this.maxLongOi || this._shortOi + open > this.maxShortOi;
  }

  /** Emits the end of a resting order (canceled or expired) with its open quantity. */
  protected emitGone(kind: number, o: number, reason: number): void {
    const orders = this.orders;
    const f = orders.flags[o];
    this.events.order(
      kind,
      ++this._seq,
      reason,
      0,
      orders.id[o],
      this.users.id[orders.user[o]],
      f & F_SELL,
      orders.price[o],
      orders.qty[o],
      0,
    );
  }
}
