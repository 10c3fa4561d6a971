import type { PromSample } from '@perp/testing';

/** A Prometheus histogram as one scrape shows it (cumulative), its series with the labels asked summed. */
export interface ScrapedHistogram {
  /** Upper bound in seconds → observations at or under it (`+Inf` included). */
  buckets: Map<number, number>;
  sum: number;
  count: number;
}

export function histogramOf(
  samples: readonly PromSample[],
  name: string,
  labels: Record<string, string> = {},
): ScrapedHistogram {
  const buckets = new Map<number, number>();
  let sum = 0;
  let count = 0;
  const wanted = Object.entries(labels);
  for (const s of samples) {
    if (!wanted.every(([k, v]) => s.labels[k] === v)) continue;
    if (s.name === `${name}_bucket`) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      buckets.set(le, (buckets.get(le) ?? 0) + s.value);
    } else if (s.name === `${name}_sum`) sum += s.value;
    else if (s.name === `${name}_count`) count += s.value;
  }
  return { buckets, sum, count };
}

/**
 * The observations between two scrapes: how many, their mean and the bucket bounds that half and
 * 99 % of them stayed under (ms; null when the bound is +Inf or there were none).
 */
export function histogramBetween(before: ScrapedHistogram, after: ScrapedHistogram) {
  const count = after.count - before.count;
  const bounds = [...after.buckets.keys()].sort((x, y) => x - y);
  const atMost = (share: number): number | null => {
    for (const le of bounds) {
      const n = (after.buckets.get(le) ?? 0) - (before.buckets.get(le) ?? 0);
      if (count > 0 && n >= share * count) return Number.isFinite(le) ? Number((le * 1000).toFixed(1)) : null;
    }
    return null;
  };
  return {
    count,
    meanMs: count > 0 ? Number((((after.sum - before.sum) / count) * 1000).toFixed(1)) : null,
    p50AtMostMs: atMost(0.5),
    p99AtMostMs: atMost(0.99),
  };
}

/** market-data's lag, an engine event on the log to the end of the turn that projected it (one per turn). */
export const MARKET_DATA_LAG = 'perp_market_data_lag_seconds';
/** The gateway's time per request, from arrival to the reply's last byte. */
export const HTTP_REQUEST_DURATION = 'perp_http_request_duration_seconds';

/** market-data's lag histogram in one scrape. */
export const lagHistogram = (samples: readonly PromSample[]) => histogramOf(samples, MARKET_DATA_LAG);

/** market-data's turns between two scrapes, as the benchmarks report them. */
export function lagBetween(before: ScrapedHistogram, after: ScrapedHistogram) {
  const h = histogramBetween(before, after);
  return { turns: h.count, meanMs: h.meanMs, p99AtMostMs: h.p99AtMostMs };
}
