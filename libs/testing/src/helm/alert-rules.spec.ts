import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { registeredSeries } from '@perp/runtime';
import { parsePromql } from '../promql';
import { chainValues, CHART_DIR, helm, helmBinary, type Manifest, renderChart } from './helm-chart';
import { kubernetesSchemaErrors } from './kubernetes-schemas';

type Group = NonNullable<IPrometheusRule['spec']['groups']>[number];
type Rule = NonNullable<Group['rules']>[number];

const RELEASE = 'perp-devnet';
const README = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');

const render = (set: string) =>
  renderChart(RELEASE, [...chainValues('devnet'), '--namespace', 'trading', '--set', set]);
const ruleOf = (objects: Manifest[]) => {
  const rules = objects.filter((o) => o.kind === 'PrometheusRule') as unknown as IPrometheusRule[];
  expect(rules).toHaveLength(1);
  return rules[0]!;
};
const alertsOf = (rule: IPrometheusRule): Rule[] => (rule.spec.groups ?? []).flatMap((g) => g.rules ?? []);

beforeAll(() => {
  helmBinary();
}, 300_000);

// The chart's optional alerting rules: valid objects, well-formed PromQL on series the apps export,
// each alert kept to its own release and documented in the chart's README.
describe('the chart, with its alerting rules', () => {
  let objects: Manifest[];
  let alerts: Rule[];

  beforeAll(() => {
    objects = render('serviceMonitor.enabled=true,prometheusRule.enabled=true');
    alerts = alertsOf(ruleOf(objects));
  });

  it('renders a PrometheusRule valid against its schema, and none unless enabled', () => {
    expect(
      objects.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => kubernetesSchemaErrors(o)),
    ).toEqual([]);
    expect(render('serviceMonitor.enabled=true').filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    expect(alerts.map((a) => a.alert)).toEqual([
      'PerpPartitionFailing',
      'PerpConsumerLag',
      'PerpOrdersUnanswered',
      'PerpSolvencyDifference',
      'PerpServerErrors',
      'PerpMarketDataLag',
      'PerpEventLoopLag',
    ]);
  });

  it('alerts in PromQL that parses, on series the apps register', () => {
    const known = registeredSeries();
    for (const a of alerts) {
      const { series, errors } = parsePromql(String(a.expr));
      expect({ alert: a.alert, errors, found: series.length > 0 }).toEqual({
        alert: a.alert,
        errors: [],
        found: true,
      });
      for (const name of series)
        expect({ alert: a.alert, name, registered: known.has(name) }).toMatchObject({ registered: true });
    }
    expect(parsePromql('max(perp_nope{a="b"}) >').errors).not.toEqual([]);
  });

  it("keeps every selector to the release's own series, labelled by its ServiceMonitor", () => {
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as unknown as IServiceMonitor;
    expect(monitor.spec.targetLabels).toEqual(['app.kubernetes.io/instance']);
    const scope = `namespace="trading", app_kubernetes_io_instance="${RELEASE}"`;
    for (const a of alerts) {
      const expr = String(a.expr);
      const scoped = expr.split(scope).length - 1;
      expect({ alert: a.alert, scoped }).toEqual({ alert: a.alert, scoped: parsePromql(expr).series.length });
    }
  });

  it('gives every alert a severity, a summary and a description naming its runbook entry in the README', () => {
    const documented = [...README.matchAll(/^### (Perp\w+)$/gm)].map((m) => m[1]);
    expect(documented).toEqual(alerts.map((a) => a.alert));
    for (const a of alerts) {
      expect(['critical', 'warning']).toContain(a.labels?.['severity']);
      expect(a.annotations?.['summary']).toMatch(/\S/);
      expect(a.annotations?.['description']).toContain(
        `Runbook: helm/perp-exchange/README.md, Alerts, ${a.alert}.`,
      );
    }
  });

  it('takes its thresholds and extra alert labels from values, and refuses a misspelt one', () => {
    const tuned = alertsOf(
      ruleOf(
        render(
          'serviceMonitor.enabled=true,prometheusRule.enabled=true,prometheusRule.thresholds.consumerLagMessages=500,prometheusRule.alertLabels.team=exchange',
        ),
      ),
    );
    const lag = tuned.find((a) => a.alert === 'PerpConsumerLag')!;
    expect(String(lag.expr)).toMatch(/ > 500$/);
    for (const a of tuned) expect(a.labels).toMatchObject({ team: 'exchange' });
    const r = helm([
      'template',
      RELEASE,
      CHART_DIR,
      ...chainValues('devnet'),
      '--set',
      'prometheusRule.enabled=true,prometheusRule.thresholds.consumerLag=5',
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('consumerLag');
  });
});
