import type { HotStore, WindowCount } from '@perp/cache';
import type { LimitWindow, WindowState } from './rate-limit-rules';
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

const covers = (lease: Lease, amount: number) => lease.endsAt !== 0 && lease.left >= amount;

/**
 * Fixed windows (request weight per IP, order counts per account) spent from local leases: a
 * replica reserves units in each shared window (HotStore.incrWindow, the same counters
 * WindowLimiter uses) and spends them without asking the store again, so a busy client's request
 * costs no hot-store round trip, and is answered synchronously.
 *
 * Leases grow only for a busy window: a reservation within BUSY_MS of the previous one doubles
 * the next lease, up to `maxLease(limit)`; otherwise a request reserves exactly its own amount, as
 * WindowLimiter does. The shared count is never taken past the ceiling by a reservation (a lease
 * is cut to what is left), so no window admits more than its ceiling across replicas. The bound
 * of the leases: units another replica reserved and has not spent (at most `maxLease` per replica
 * and window) count as used in this replica's headers and refusals until the window ends. With one
 * replica the counts are exact: the header is the shared count less this replica's unspent units.
 * A request refused by any of its windows spends nothing in any (what a reservation added stays
 * reserved for the next requests; only a reservation that lost a race for a window's last units
 * leaves them counted, as WindowLimiter's loser does).
 */
export class WindowLeases {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly hot: HotStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The outcome at once when the leases cover `amount`, else after reservations in the store. */
  take(windows: readonly LimitWindow[], amount: number): LimitOutcome | Promise<LimitOutcome> {
    const now = this.now();
    const leases = windows.map((w) => this.leaseOf(w.key, now));
    if (leases.every((l) => covers(l, amount))) return this.spend(windows, leases, amount, now);
    return this.reserve(windows, amount);
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

  private spend(
    windows: readonly LimitWindow[],
    leases: readonly Lease[],
    amount: number,
    now: number,
  ): LimitOutcome {
    for (const l of leases) l.left -= amount;
    return { windows, states: this.states(windows, leases, now), refused: [] };
  }

  /** Each window's count as this replica sees it: the shared count less its unspent units. */
  private states(windows: readonly LimitWindow[], leases: readonly Lease[], now: number): WindowState[] {
    return leases.map((l, i) => ({
      count: l.shared - l.left,
      resetInMs: l.endsAt !== 0 ? l.endsAt - now : windows[i]!.windowMs,
    }));
  }

  private async reserve(windows: readonly LimitWindow[], amount: number): Promise<LimitOutcome> {
    for (;;) {
      const now = this.now();
      const leases = windows.map((w) => this.leaseOf(w.key, now));
      const busy = leases.find((l) => l.reserving);
      if (busy) {
        await busy.reserving!.catch(() => undefined);
        continue; // the leases again: the table may have been dropped meanwhile
      }
      if (leases.every((l) => covers(l, amount))) return this.spend(windows, leases, amount, now);
      const done = this.reserveNow(windows, leases, amount);
      for (const l of leases) l.reserving = done;
      try {
        return await done;
      } finally {
        for (const l of leases) if (l.reserving === done) l.reserving = undefined;
      }
    }
  }

  /**
   * WindowLimiter's read-then-add on the windows whose lease does not cover `amount`, less this
   * replica's unspent units, plus each one's next lease; then `amount` spent from every lease.
   */
  private async reserveNow(
    windows: readonly LimitWindow[],
    leases: readonly Lease[],
    amount: number,
  ): Promise<LimitOutcome> {
    const started = this.now();
    const lacking = leases.flatMap((l, i) => (covers(l, amount) ? [] : [i]));
    const reads = await Promise.all(
      lacking.map((i) => this.hot.incrWindow(windows[i]!.key, 0, windows[i]!.windowMs)),
    );
    lacking.forEach((i, j) => this.seen(leases[i]!, reads[j]!, 0));
    const over = (i: number) => leases[i]!.shared - leases[i]!.left + amount > windows[i]!.limit;
    const refused = amount === 0 ? [] : windows.flatMap((_, i) => (over(i) ? [i] : []));
    if (amount === 0 || refused.length > 0)
      return { windows, states: this.states(windows, leases, this.now()), refused };

    const reservations = lacking.map((i) => {
      const w = windows[i]!;
      const lease = leases[i]!;
      const need = amount - lease.left;
      lease.next =
        started - lease.lastReserve < BUSY_MS ? Math.min(Math.max(1, lease.next * 2), maxLease(w.limit)) : 0;
      lease.lastReserve = started;
      return need + Math.min(lease.next, w.limit - lease.shared - need);
    });
    const added = await Promise.all(
      lacking.map((i, j) => this.hot.incrWindow(windows[i]!.key, reservations[j]!, windows[i]!.windowMs)),
    );
    const lost: number[] = [];
    lacking.forEach((i, j) => {
      const lease = leases[i]!;
      this.seen(lease, added[j]!, reservations[j]!);
      // Lost a race for the last units: refused, and what it reserved stays counted.
      if (added[j]!.count > windows[i]!.limit) lost.push(i);
      else lease.left += reservations[j]!;
    });
    if (lost.length > 0) return { windows, states: this.states(windows, leases, this.now()), refused: lost };
    return this.spend(windows, leases, amount, this.now());
  }

  /** Takes in the store's answer (after adding `added`): a count below this replica's unspent units means the window restarted. */
  private seen(lease: Lease, state: WindowCount, added: number): void {
    if (state.count - added < lease.left) lease.left = 0;
    lease.shared = state.count;
    lease.endsAt = state.count > 0 ? this.now() + state.resetInMs : 0;
  }
}
