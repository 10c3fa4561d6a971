import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePromql } from '@perp/testing';
import { registeredSeries } from './registered-series';

const DASHBOARD = join(__dirname, '../../../../deploy/grafana/perp-exchange.json');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/**
 * PromQL of a panel or a variable: Grafana's interval variables become a duration and its
 * `label_values(series, label)` the series, so that Prometheus's grammar can check the rest.
 */
function grafanaPromql(expr: string) {
  return parsePromql(
    expr.replace(/\$__(rate_)?interval\b/g, '5m').replace(/^label_values\(\s*([^,)]+),[^)]*\)$/, '$1'),
  );
}

describe('deploy/grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
  const panels: Panel[] = (dashboard.panels as Panel[]).flatMap((p) => [p, ...(p.panels ?? [])]);
  const known = registeredSeries();
  const expressions = [
    ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
    ...dashboard.templating.list
      .filter((v: { type: string }) => v.type === 'query')
      .map((v: { name: string; definition: string }) => ({ where: `$${v.name}`, expr: v.definition })),
  ];

  it('finds the series of an expression (and so a misspelt one), and its syntax errors', () => {
    expect(
      grafanaPromql('sum by (route) (rate(perp_nope_total{a="b(c)"}[$__rate_interval])) / on (x) up'),
    ).toEqual({ series: ['perp_nope_total', 'up'], errors: [] });
    expect(grafanaPromql('label_values(process_cpu_seconds_total, app)').series).toEqual([
      'process_cpu_seconds_total',
    ]);
    expect(grafanaPromql('sum(rate(perp_nope_total[5m])').errors).not.toEqual([]);
  });

  it('has a panel for each named series group', () => {
    const used = new Set(expressions.flatMap(({ expr }) => grafanaPromql(expr).series));
    for (const name of [
      'perp_http_request_duration_seconds_count',
      'perp_http_request_duration_seconds_bucket',
      'perp_gateway_command_duration_seconds_bucket',
      'perp_bus_consumer_lag_messages',
      'perp_bus_batch_size_messages_sum',
      'perp_bus_handler_failures_total',
      'perp_bus_handler_failing_seconds',
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
      const { series, errors } = grafanaPromql(expr);
      expect({ where, expr, errors, found: series.length > 0 }).toEqual({
        where,
        expr,
        errors: [],
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
