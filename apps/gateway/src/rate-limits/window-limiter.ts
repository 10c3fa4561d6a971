import type { HotStore } from '@perp/cache';
import { exceeded, type LimitWindow, type WindowState } from './rate-limit-rules';

/** What a check found: the windows' counts after it, and which windows refused (none: admitted). */
export interface LimitOutcome {
  windows: readonly LimitWindow[];
  states: WindowState[];
  /** Indexes into `windows`; empty when the request is admitted. */
  refused: number[];
}

/**
 * Fixed-window counters in the hot store (HotStore.incrWindow), so every gateway replica counts
 * into the same windows.
 *
 * `take` first reads every window: if `amount` more would pass any ceiling the request is refused
 * and nothing is counted (a refused request changes nothing). Otherwise it adds `amount` to every
 * window; if a concurrent request took the last of a window in between, the new count is over
 * the ceiling and this request is refused too. So no window ever admits more than its ceiling;
 * only a request that loses such a race leaves its amount counted.
 */
export class WindowLimiter {
  constructor(private readonly hot: HotStore) {}

  async take(windows: readonly LimitWindow[], amount: number): Promise<LimitOutcome> {
    const read = await Promise.all(windows.map((w) => this.hot.incrWindow(w.key, 0, w.windowMs)));
    const refused = exceeded(windows, read, amount);
    if (refused.length > 0 || amount === 0) return { windows, states: read, refused };
    const added = await Promise.all(windows.map((w) => this.hot.incrWindow(w.key, amount, w.windowMs)));
    return { windows, states: added, refused: exceeded(windows, added, 0) };
  }
}
