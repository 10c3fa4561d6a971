import { Metrics, processMetrics } from './metrics';

/**
 * Every series name a scrape of an app can contain (histograms as their _bucket, _sum and _count
 * lines): what the dashboard and the alerting rules may refer to.
 */
export function registeredSeries(): Set<string> {
  const names = new Set<string>();
  for (const r of [new Metrics().registry, processMetrics()]) {
    for (const m of r.getMetricsAsArray()) {
      const { name, type } = m as unknown as { name: string; type: string };
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(name + s);
      else names.add(name);
    }
  }
  return names;
}
