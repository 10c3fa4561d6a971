import type { Histogram } from 'prom-client';

type Labels = Record<string, string>;

/** prom-client's per-series state (v15): non-cumulative counts by upper bound, sum and count. */
interface SeriesState {
  labels: Labels;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

interface Tallied {
  labels: Labels;
  /** Observations per bucket since the last flush; the last slot is above every bound (+Inf only). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * Fixed series of a histogram counted in place and added to it when it is collected (scrape
 * time), for routes observed thousands of times a second: prom-client's `observe` checks and
 * hashes the labels on every call. Scraped output is the same as observing each value. If the
 * installed prom-client keeps its series differently, every value is observed at once instead.
 */
export class HistogramTally {
  private tallied: Tallied[] = [];
  private readonly byKey = new Map<string, (value: number) => void>();
  /** Every observer `series` made, with its labels (for `drop`). */
  private readonly made = new Map<(value: number) => void, Labels>();
  private readonly bounds: readonly number[];
  private readonly inPlace: boolean;

  constructor(private readonly histogram: Histogram<string>) {
    const internals = histogram as unknown as { upperBounds?: unknown; hashMap?: unknown };
    this.bounds = Array.isArray(internals.upperBounds) ? (internals.upperBounds as number[]) : [];
    this.inPlace = this.bounds.length > 0 && typeof internals.hashMap === 'object';
  }

  /** An observer of the series with these labels. */
  series(labels: Labels): (value: number) => void {
    const observer = this.observer(labels);
    this.made.set(observer, labels);
    return observer;
  }

  private observer(labels: Labels): (value: number) => void {
    if (!this.inPlace) {
      const child = this.histogram.labels(labels);
      return (value) => child.observe(value);
    }
    const t: Tallied = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
    this.tallied.push(t);
    const bounds = this.bounds;
    return (value) => {
      if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
      let i = 0;
      while (i < bounds.length && value > bounds[i]!) i++;
      t.counts[i]!++;
      t.sum += value;
      t.count++;
    };
  }

  /**
   * Observes `value` in the series of `labels` (a few label sets seen over and over: one Map lookup
   * by their values instead of prom-client's checks and hashing).
   */
  observe(labels: Labels, value: number): void {
    let key = '';
    for (const k in labels) key += `${labels[k]}\u0000`;
    let observer = this.byKey.get(key);
    if (observer === undefined) this.byKey.set(key, (observer = this.series(labels)));
    observer(value);
  }

  /**
   * Removes the series whose labels `match` from the tally and the histogram (their owner is gone:
   * kept, each one would be held and scraped for the life of the process). Their observers must not
   * be called again: what they count is not scraped.
   */
  drop(match: (labels: Labels) => boolean): void {
    this.tallied = this.tallied.filter((t) => !match(t.labels));
    for (const [observer, labels] of this.made) {
      if (!match(labels)) continue;
      this.made.delete(observer);
      this.histogram.remove(labels);
    }
    for (const [key, observer] of this.byKey) if (!this.made.has(observer)) this.byKey.delete(key);
  }

  /** Adds what was counted since the last flush to the histogram (its `collect` calls this). */
  flush(): void {
    for (const t of this.tallied) {
      if (t.count === 0) continue;
      const state = this.stateOf(t.labels);
      if (state === undefined) return; // not prom-client's layout: keep counting, nothing lost
      for (let i = 0; i < this.bounds.length; i++) {
        const n = t.counts[i]!;
        if (n > 0) state.bucketValues[this.bounds[i]!] = (state.bucketValues[this.bounds[i]!] ?? 0) + n;
      }
      state.sum += t.sum;
      state.count += t.count;
      t.counts.fill(0);
      t.sum = t.count = 0;
    }
  }

  private stateOf(labels: Labels): SeriesState | undefined {
    const find = () => {
      const map = (this.histogram as unknown as { hashMap: Record<string, SeriesState> }).hashMap;
      return Object.values(map).find((s) => sameLabels(s.labels, labels));
    };
    let state = find();
    if (state === undefined) {
      this.histogram.zero(labels);
      state = find();
    }
    return state && typeof state.bucketValues === 'object' ? state : undefined;
  }
}

function sameLabels(a: Labels, b: Labels): boolean {
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}
