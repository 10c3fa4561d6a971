import type { PromSample } from '@perp/testing';

/** market-data's lag histogram as one scrape shows it (cumulative, as Prometheus keeps it). */
export interface LagHistogram {
  /** Upper bound in seconds → observations at or under it (`+Inf` included). */
  buckets: Map<number, number>;
  sum: number;
  count: number;
}

const NAME = 'perp_market_data_lag_seconds';

export function lagHistogram(samples: readonly PromSample[]): LagHistogram {
  const buckets = new Map<number, number>();
  let sum = 0;
  let count = 0;
  for (const s of samples) {
    if (s.name === `${NAME}_bucket`) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      buckets.set(le, (buckets.get(le) ?? 0) + s.value);
    } else if (s.name === `${NAME}_sum`) sum += s.value;
    else if (s.name === `${NAME}_count`) count += s.value;
  }
  return { buckets, sum, count };
}

/**
 * The turns observed between two scrapes: how many, their mean lag and the bucket bound that 99 %
 * of them stayed under (ms; null when the bound is +Inf or there were none).
 */
export function lagBetween(before: LagHistogram, after: LagHistogram) {
  const turns = after.count - before.count;
  const bounds = [...after.buckets.keys()].sort((x, y) => x - y);
  let p99AtMostMs: number | null = null;
  for (const le of bounds) {
    const n = (after.buckets.get(le) ?? 0) - (before.buckets.get(le) ?? 0);
    if (turns > 0 && n >= 0.99 * turns) {
      p99AtMostMs = Number.isFinite(le) ? Math.round(le * 1000) : null;
      break;
    }
  }
  return {
    turns,
    meanMs: turns > 0 ? Number((((after.sum - before.sum) / turns) * 1000).toFixed(1)) : null,
    p99AtMostMs,
  };
}
