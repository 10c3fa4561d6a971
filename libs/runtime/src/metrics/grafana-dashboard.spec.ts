import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import { Metrics, processMetrics } from './metrics';

const DASHBOARD = join(__dirname, '../../../../deploy/grafana/perp-exchange.json');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** Series names a scrape can contain: histograms and summaries as their _bucket/_sum/_count lines. */
function seriesNames(registries: Registry[]): Set<string> {
  const names = new Set<string>();
  for (const r of registries) {
    for (const m of r.getMetricsAsArray()) {
      const { name, type } = m as unknown as { name: string; type: string };
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(name + s);
      else names.add(name);
    }
  }
  return names;
}

/**
 * The identifiers of a PromQL expression that name series: what is left once strings, label
 * matchers, ranges, grouping clauses and function calls are taken out.
 */
function seriesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\blabel_values\(\s*([^,)]+),[^)]*\)/g, ' $1 ') // Grafana's: (series, label)
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const out: string[] = [];
  for (const m of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = bare.slice(m.index + m[0].length).trimStart();
    if (after.startsWith('(')) continue; // a function or an aggregation
    if (['and', 'or', 'unless', 'bool', 'offset'].includes(m[0])) continue;
    out.push(m[0]);
  }
  return out;
}

function balanced(expr: string): boolean {
  const open: string[] = [];
  const pairs: Record<string, string> = { ')': '(', '}': '{', ']': '[' };
  for (const c of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if ('({['.includes(c)) open.push(c);
    else if (c in pairs && open.pop() !== pairs[c]) return false;
  }
  return open.length === 0;
}

describe('deploy/grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
  const panels: Panel[] = (dashboard.panels as Panel[]).flatMap((p) => [p, ...(p.panels ?? [])]);
  const known = seriesNames([new Metrics().registry, processMetrics()]);
  const expressions = [
    ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
    ...dashboard.templating.list
      .filter((v: { type: string }) => v.type === 'query')
      .map((v: { name: string; definition: string }) => ({ where: `$${v.name}`, expr: v.definition })),
  ];

  it('finds the series of an expression (and so a misspelt one)', () => {
    expect(seriesIn('sum by (route) (rate(perp_nope_total{a="b(c)"}[5m])) / on (x) up')).toEqual([
      'perp_nope_total',
      'up',
    ]);
    expect(seriesIn('label_values(process_cpu_seconds_total, app)')).toEqual(['process_cpu_seconds_total']);
  });

  it('has a panel for each named series group', () => {
    const used = new Set(expressions.flatMap(({ expr }) => seriesIn(expr)));
    for (const name of [
      'perp_http_request_duration_seconds_count',
      'perp_http_request_duration_seconds_bucket',
      'perp_gateway_command_duration_seconds_bucket',
      'perp_bus_consumer_lag_messages',
      'perp_bus_batch_size_messages_sum',
      'perp_engine_commands_total',
      'perp_engine_book_orders',
      'perp_engine_book_levels',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
    ])
      expect(used).toContain(name);
  });

  it('references only series the apps register, in well-formed expressions', () => {
    expect(expressions.length).toBeGreaterThan(10);
    for (const { where, expr } of expressions) {
      const series = seriesIn(expr);
      expect({ where, expr, balanced: balanced(expr), found: series.length > 0 }).toEqual({
        where,
        expr,
        balanced: true,
        found: true,
      });
      for (const name of series)
        expect({ where, name, registered: known.has(name) }).toMatchObject({ registered: true });
    }
  });

  it('queries through its datasource variable, on panels with distinct ids', () => {
    const ids = panels.map((p) => (p as unknown as { id: number }).id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels.filter((p) => p.type !== 'row'))
      expect((p as unknown as { datasource: { uid: string } }).datasource.uid).toBe('${datasource}');
  });
});
