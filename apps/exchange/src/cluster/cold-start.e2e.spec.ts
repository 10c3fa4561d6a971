import type { RunningApp } from '@perp/testing';
import { CLUSTER_APPS as CLUSTER } from './cluster-environment';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster-environment.harness';

// Issue 18's cold start: every process of the cluster started at the same moment against a fresh
// broker (no topic, no group, no offset) and a fresh database; they race to create the topics, the
// schema and the consumer groups, and every one of them must still become ready.
describe('cold start: the whole cluster at once on a fresh Kafka mock', () => {
  let cluster: ClusterEnvironment | undefined;
  const apps: RunningApp[] = [];

  afterAll(() => cluster?.close());

  it('starts gateway, 2 risk, 2 engine, market-data, funding and keeper together: all answer /readyz', async () => {
    cluster = await openClusterEnvironment('cold', 12);
    const c = cluster;
    const started = await Promise.allSettled(
      CLUSTER.map(async (app) => {
        // About 30 s on an idle 2-core machine; the bound leaves room for a loaded one.
        const a = await c.start(app, 90_000);
        apps.push(a);
        return a;
      }),
    );
    const failed = started.flatMap((s, i) =>
      s.status === 'rejected' ? [`${CLUSTER[i]}: ${String(s.reason).slice(0, 3000)}`] : [],
    );
    expect(failed).toEqual([]);
    for (const a of apps) expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    // Racing for topics and groups is expected on a cold start: nothing of it is an error.
    const errors = apps.flatMap((a) => a.output().split('\n')).filter((l) => l.includes('"level":"error"'));
    expect(errors).toEqual([]);
  }, 150_000);
});
