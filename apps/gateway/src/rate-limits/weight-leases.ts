import type { HotStore, WindowCount } from '@perp/cache';
import type { LimitWindow } from './rate-limit-rules';
import type { LimitOutcome } from './window-limiter';

/** A reservation this soon after the previous one of the same window doubles the next lease. */
export const BUSY_MS = 1_000;
/** The most units a replica reserves beyond a request's own: 1/20 of the ceiling, at most 1,000. */
export const maxLease = (limit: number) => Math.max(0, Math.min(1_000, Math.floor(limit / 20)));

interface Lease {
  /** The shared count when last seen: what every replica has spent or reserved in the window. */
  shared: number;
  /** Units this replica reserved in the shared window and has not spent yet. */
  left: number;
  /** Local time the shared window ends; 0 when none is known. */
  endsAt: number;
  /** Units reserved beyond the request's own at the next reservation (0: exactly what it needs). */
  next: number;
  lastReserve: number;
  /** The reservation in flight, if any; others wait for it instead of asking the store too. */
  reserving?: Promise<unknown>;
}

/**
 * Request weight in one fixed window per subject, spent from local leases: a replica reserves
 * units in the shared window (HotStore.incrWindow, the same counter WindowLimiter uses) and spends
 * them without asking the store again, so a busy client's request costs no hot-store round trip.
 *
 * Leases grow only for a busy window: a reservation within BUSY_MS of the previous one doubles
 * the next lease, up to `maxLease(limit)`; otherwise a request reserves exactly its own weight, as
 * WindowLimiter does. The shared count is never taken past the ceiling by a reservation (a lease
 * is cut to what is left), so no window admits more than its ceiling across replicas. The bound
 * of the leases: units another replica reserved and has not spent (at most `maxLease` per replica
 * and window) count as used in this replica's headers and refusals until the window ends. With one
 * replica the counts are exact: the header is the shared count less this replica's unspent units.
 * A refused request reserves and spends nothing.
 */
export class WeightLeases {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly hot: HotStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The outcome at once when the lease covers `amount`, else after a reservation in the store. */
  take(windows: readonly [LimitWindow], amount: number): LimitOutcome | Promise<LimitOutcome> {
    const now = this.now();
    const lease = this.leaseOf(windows[0].key, now);
    if (lease.endsAt !== 0 && lease.left >= amount) return this.spend(windows, lease, amount, now);
    return this.reserve(windows, lease, amount);
  }

  private leaseOf(key: string, now: number): Lease {
    let lease = this.leases.get(key);
    if (lease === undefined) {
      if (this.leases.size >= 10_000) this.leases.clear(); // unspent units are lost: counted, not spent
      this.leases.set(key, (lease = { shared: 0, left: 0, endsAt: 0, next: 0, lastReserve: -BUSY_MS }));
    } else if (lease.endsAt !== 0 && lease.endsAt <= now) {
      lease.shared = lease.left = lease.endsAt = 0; // the window (and what was left of it) is over
    }
    return lease;
  }

  private spend(windows: readonly [LimitWindow], lease: Lease, amount: number, now: number): LimitOutcome {
    lease.left -= amount;
    return {
      windows,
      states: [{ count: lease.shared - lease.left, resetInMs: lease.endsAt - now }],
      refused: [],
    };
  }

  private async reserve(
    windows: readonly [LimitWindow],
    lease: Lease,
    amount: number,
  ): Promise<LimitOutcome> {
    const w = windows[0];
    while (lease.reserving) {
      await lease.reserving.catch(() => undefined);
      const now = this.now();
      const current = this.leaseOf(w.key, now);
      if (current !== lease) return this.take(windows, amount); // the table was dropped meanwhile
      if (lease.endsAt !== 0 && lease.left >= amount) return this.spend(windows, lease, amount, now);
    }
    const done = this.reserveNow(windows, lease, amount);
    lease.reserving = done;
    try {
      return await done;
    } finally {
      lease.reserving = undefined;
    }
  }

  /** WindowLimiter's read-then-add, less this replica's unspent units, plus the next lease. */
  private async reserveNow(
    windows: readonly [LimitWindow],
    lease: Lease,
    amount: number,
  ): Promise<LimitOutcome> {
    const w = windows[0];
    const started = this.now();
    const read = await this.hot.incrWindow(w.key, 0, w.windowMs);
    this.seen(lease, read, 0);
    const used = read.count - lease.left;
    if (amount === 0 || used + amount > w.limit) {
      const refused = amount === 0 ? [] : [0];
      return { windows, states: [{ count: used, resetInMs: read.resetInMs }], refused };
    }
    const need = amount - lease.left;
    lease.next =
      started - lease.lastReserve < BUSY_MS ? Math.min(Math.max(1, lease.next * 2), maxLease(w.limit)) : 0;
    lease.lastReserve = started;
    const reserved = need + Math.min(lease.next, w.limit - read.count - need);
    const added = await this.hot.incrWindow(w.key, reserved, w.windowMs);
    this.seen(lease, added, reserved);
    if (added.count > w.limit) {
      // Lost a race for the last units: refused, and what it reserved stays counted (WindowLimiter's rule).
      return {
        windows,
        states: [{ count: added.count - lease.left, resetInMs: added.resetInMs }],
        refused: [0],
      };
    }
    lease.left += reserved - amount;
    return {
      windows,
      states: [{ count: added.count - lease.left, resetInMs: added.resetInMs }],
      refused: [],
    };
  }

  /** Takes in the store's answer (after adding `added`): a count below this replica's unspent units means the window restarted. */
  private seen(lease: Lease, state: WindowCount, added: number): void {
    if (state.count - added < lease.left) lease.left = 0;
    lease.shared = state.count;
    lease.endsAt = state.count > 0 ? this.now() + state.resetInMs : 0;
  }
}
