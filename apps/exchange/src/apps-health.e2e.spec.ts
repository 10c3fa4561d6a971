import { startAppProcess } from '@perp/testing';

/** Every app starts on its own and answers its probes (the cluster's deployment unit). */
describe.each(['gateway', 'matching-engine', 'risk', 'funding', 'keeper', 'market-data'])(
  '%s process',
  (app) => {
    it('answers /healthz and /readyz', async () => {
      const running = await startAppProcess(app);
      try {
        expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
        const ready = await fetch(`${running.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as any).ready).toBe(true);
      } finally {
        await running.stop();
      }
    }, 30_000);

    it('exits 1 with a readable reason on a bad configuration', async () => {
      await expect(startAppProcess(app, { BUS: 'kafka' })).rejects.toThrow(
        /exited with 1[\s\S]*KAFKA_BROKERS: required when BUS=kafka/,
      );
    }, 30_000);
  },
);
