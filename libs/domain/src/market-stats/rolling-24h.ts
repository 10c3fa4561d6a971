import { Money } from '../money/money';

const MINUTE = 60_000;
const WINDOW_MINUTES = 24 * 60;

interface Bucket {
  minute: number;
  open: Money;
  high: Money;
  low: Money;
  close: Money;
  volume: Money;
  quoteVolume: Money;
  count: number;
  firstTime: number;
  lastTime: number;
  lastQty: Money;
}

/**
 * One minute of trades as a restarting projector stores it: a one-minute kline's OHLC and volumes
 * plus the first and last trade time and the last quantity, which the 24 h ticker reports.
 */
export interface MinuteBucket {
  /** The minute's open time (ms, a multiple of 60 000). */
  openTime: number;
  open: Money;
  high: Money;
  low: Money;
  close: Money;
  volume: Money;
  quoteVolume: Money;
  count: number;
  firstTime: number;
  lastTime: number;
  lastQty: Money;
}

export interface Stats24h {
  openTime: number;
  closeTime: number;
  open: Money;
  high: Money;
  low: Money;
  last: Money;
  lastQty: Money;
  volume: Money;
  quoteVolume: Money;
  count: number;
  firstTime: number;
  lastTime: number;
}

const inWindow = (b: Bucket, nowMinute: number) =>
  b.minute > nowMinute - WINDOW_MINUTES && b.minute <= nowMinute;

/** A copy (the ring's buckets are updated in place; Money values are immutable). */
function exportBucket({ minute, ...rest }: Bucket): MinuteBucket {
  return { openTime: minute * MINUTE, ...rest };
}

/**
 * Rolling 24 h statistics of one symbol's trades, in one-minute buckets (constant memory whatever
 * the volume). The window is the last 1440 whole minutes including the current one.
 */
export class Rolling24h {
  private readonly ring: (Bucket | undefined)[] = new Array(WINDOW_MINUTES);

  /**
   * Rebuilds the statistics from stored minutes (as `minutes()` exported them) instead of replaying
   * every trade. Of two minutes sharing a slot the later is kept, as `record` would.
   */
  static fromMinutes(minutes: Iterable<MinuteBucket>): Rolling24h {
    const r = new Rolling24h();
    for (const { openTime, ...m } of minutes) {
      const minute = Math.floor(openTime / MINUTE);
      const slot = minute % WINDOW_MINUTES;
      const held = r.ring[slot];
      if (!held || held.minute < minute) r.ring[slot] = { minute, ...m };
    }
    return r;
  }

  /** The minutes held, oldest first; with `now`, only those inside the window at `now`. */
  minutes(now?: number): MinuteBucket[] {
    const nowMinute = now === undefined ? undefined : Math.floor(now / MINUTE);
    return this.ring
      .filter((b): b is Bucket => !!b && (nowMinute === undefined || inWindow(b, nowMinute)))
      .sort((a, b) => a.minute - b.minute)
      .map(exportBucket);
  }

  /** The minute holding `time`, to store after recording a trade at `time`. */
  minuteAt(time: number): MinuteBucket | undefined {
    const minute = Math.floor(time / MINUTE);
    const b = this.ring[minute % WINDOW_MINUTES];
    return b && b.minute === minute ? exportBucket(b) : undefined;
  }

  record(time: number, price: Money, qty: Money): void {
    const minute = Math.floor(time / MINUTE);
    const slot = minute % WINDOW_MINUTES;
    let b = this.ring[slot];
    if (!b || b.minute !== minute) {
      if (b && b.minute > minute) return; // older than the window: it cannot change today's figures
      b = {
        minute,
        open: price,
        high: price,
        low: price,
        close: price,
        volume: new Money(0),
        quoteVolume: new Money(0),
        count: 0,
        firstTime: time,
        lastTime: time,
        lastQty: qty,
      };
      this.ring[slot] = b;
    }
    if (price.gt(b.high)) b.high = price;
    if (price.lt(b.low)) b.low = price;
    if (time >= b.lastTime) {
      b.close = price;
      b.lastTime = time;
      b.lastQty = qty;
    }
    if (time < b.firstTime) {
      b.open = price;
      b.firstTime = time;
    }
    b.volume = b.volume.plus(qty);
    b.quoteVolume = b.quoteVolume.plus(price.times(qty));
    b.count += 1;
  }

  /** Statistics at `now`; with no trade in the window every figure is zero and times are 0. */
  stats(now: number): Stats24h {
    const nowMinute = Math.floor(now / MINUTE);
    const zero = new Money(0);
    const s: Stats24h = {
      openTime: now - WINDOW_MINUTES * MINUTE,
      closeTime: now,
      open: zero,
      high: zero,
      low: zero,
      last: zero,
      lastQty: zero,
      volume: zero,
      quoteVolume: zero,
      count: 0,
      firstTime: 0,
      lastTime: 0,
    };
    let first: Bucket | undefined;
    let last: Bucket | undefined;
    for (const b of this.ring) {
      if (!b || !inWindow(b, nowMinute)) continue;
      if (!first || b.minute < first.minute) first = b;
      if (!last || b.minute > last.minute) last = b;
      s.high = s.count === 0 || b.high.gt(s.high) ? b.high : s.high;
      s.low = s.count === 0 || b.low.lt(s.low) ? b.low : s.low;
      s.volume = s.volume.plus(b.volume);
      s.quoteVolume = s.quoteVolume.plus(b.quoteVolume);
      s.count += b.count;
    }
    if (first && last) {
      s.open = first.open;
      s.firstTime = first.firstTime;
      s.last = last.close;
      s.lastQty = last.lastQty;
      s.lastTime = last.lastTime;
    }
    return s;
  }
}
