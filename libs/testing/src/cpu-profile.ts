import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * Runs one benchmark row; with `BENCH_CPU_PROF=DIR`, under a V8 CPU profile of this process written
 * to `DIR/<name>.cpuprofile` (open it in Chrome's DevTools or `npx speedscope`). `node --cpu-prof`
 * profiles the whole run, setup and every row together; this profiles the row alone. A profiled
 * run's rates are slower than an unprofiled one's: compare profiles with profiles. The first
 * samples, under `dispatch`, are the profiler starting (it records every function already
 * compiled): leave them out of the row's shares.
 */
export async function profiledRow<T>(name: string, row: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return row();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await row();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  }
}
