import { parsePrometheusText, startAppProcess, sumOf } from '@perp/testing';

/** Every app starts on its own and answers its probes and /metrics (the cluster's deployment unit). */
describe.each(['gateway', 'matching-engine', 'risk', 'funding', 'keeper', 'market-data'])(
  '%s process',
  (app) => {
    it('answers /healthz, /readyz and /metrics', async () => {
      // Embedded Postgres starts slowly on a loaded machine.
      const running = await startAppProcess(app, {}, 60_000);
      try {
        expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
        const ready = await fetch(`${running.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as any).ready).toBe(true);

        const scrape = async () => {
          const r = await fetch(`${running.url}/metrics`);
          expect(r.status).toBe(200);
          expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
          return parsePrometheusText(await r.text());
        };
        const healthz = { app, route: '/healthz', status: '200' };
        const before = await scrape();
        for (let i = 0; i < 3; i++) await fetch(`${running.url}/healthz`);
        const after = await scrape();
        const count = 'perp_http_request_duration_seconds_count';
        expect(sumOf(after, count, healthz) - sumOf(before, count, healthz)).toBe(3);
        expect(after.find((s) => s.name === 'process_cpu_seconds_total')?.labels).toEqual({ app });
      } finally {
        await running.stop();
      }
    }, 90_000);

    it('exits 1 with a readable reason on a bad configuration', async () => {
      await expect(startAppProcess(app, { BUS: 'kafka' })).rejects.toThrow(
        /exited with 1[\s\S]*KAFKA_BROKERS: required when BUS=kafka/,
      );
    }, 30_000);
  },
);
