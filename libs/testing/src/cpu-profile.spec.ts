import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profiledRow } from './cpu-profile';

describe('profiledRow', () => {
  const saved = process.env.BENCH_CPU_PROF;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cpu-profile-'));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.BENCH_CPU_PROF;
    else process.env.BENCH_CPU_PROF = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  const busy = async () => {
    let x = 0;
    for (let i = 0; i < 2e6; i++) x += Math.sqrt(i);
    return x;
  };

  it('writes the row alone as a V8 CPU profile when BENCH_CPU_PROF names a directory', async () => {
    process.env.BENCH_CPU_PROF = join(dir, 'profiles');
    expect(await profiledRow('row-a', busy)).toBeGreaterThan(0);
    const profile = JSON.parse(readFileSync(join(dir, 'profiles', 'row-a.cpuprofile'), 'utf8')) as {
      nodes: unknown[];
      samples: unknown[];
    };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(Array.isArray(profile.samples)).toBe(true);
  });

  it('only runs the row without it, and writes the profile when the row throws', async () => {
    delete process.env.BENCH_CPU_PROF;
    expect(await profiledRow('row-b', async () => 7)).toBe(7);
    expect(existsSync(join(dir, 'row-b.cpuprofile'))).toBe(false);
    process.env.BENCH_CPU_PROF = dir;
    await expect(
      profiledRow('row-c', async () => {
        throw new Error('row failed');
      }),
    ).rejects.toThrow('row failed');
    expect(existsSync(join(dir, 'row-c.cpuprofile'))).toBe(true);
  });
});
