import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '@perp/testing';
import { EXCHANGE_NODE_ARGS } from './exchange-process';

const REPO = join(__dirname, '..', '..', '..', '..');
const ENTRY = 'dist/apps/exchange/src/main.js';

/** The node options a launcher puts before the exchange's entry point, source maps aside. */
function nodeOptionsOf(launcher: string): string[] | undefined {
  const shell = new RegExp(`^exec node ((?:--\\S+ )*)${ENTRY}$`, 'm').exec(launcher);
  const docker = new RegExp(`^CMD \\["node", ((?:"--[^"]+", )*)"${ENTRY}"\\]$`, 'm').exec(launcher);
  const options = shell?.[1]?.split(' ') ?? docker?.[1]?.split(', ').map((o) => o.replace(/"/g, ''));
  return options?.filter((o) => o !== '' && o !== '--enable-source-maps');
}

/** What Nest's shutdown hooks do: their own SIGTERM listener, which removes itself and raises it again. */
const HANDLER_RAISING_AGAIN = [
  "const h = () => { process.removeListener('SIGTERM', h); process.kill(process.pid, 'SIGTERM'); };",
  "process.on('SIGTERM', h); process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 2000)",
].join(' ');

describe('the benchmark exchange process', () => {
  it.each(['deploy/scripts/start.sh', 'deploy/docker/Dockerfile'])(
    'gets the node options that %s starts the exchange with',
    (file) => {
      expect(nodeOptionsOf(readFileSync(join(REPO, file), 'utf8'))).toEqual(EXCHANGE_NODE_ARGS);
    },
  );

  it('reads the options of both launcher forms', () => {
    expect(nodeOptionsOf(`exec node --enable-source-maps --max-semi-space-size=64 ${ENTRY}\n`)).toEqual([
      '--max-semi-space-size=64',
    ]);
    expect(nodeOptionsOf(`CMD ["node", "--enable-source-maps", "--foo=1", "${ENTRY}"]\n`)).toEqual([
      '--foo=1',
    ]);
    expect(nodeOptionsOf('exec node other.js\n')).toBeUndefined();
  });

  it.each([
    ['exits on its own', 'process.exit(0)'],
    ['is ended by SIGTERM with nobody else listening', "process.kill(process.pid, 'SIGTERM')"],
    ['is ended by a SIGTERM handler that raises it again (Nest)', HANDLER_RAISING_AGAIN],
  ])('BENCH_ALLOC_PROF: the preload writes the allocation profile when the process %s', (_, end) => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'alloc-prof-'));
    try {
      const preload = join(REPO, 'dist/apps/exchange/src/bench/allocation-profile.js');
      const script = `const held = []; for (let i = 0; i < 200000; i++) held.push({ i }); ${end};`;
      const r = spawnSync(process.execPath, ['--require', preload, '-e', script], {
        env: { ...process.env, BENCH_ALLOC_PROF: dir },
        encoding: 'utf8',
      });
      expect(r.error).toBeUndefined();
      const files = readdirSync(dir);
      expect(files).toEqual([expect.stringMatching(/^alloc\.\d+\.heapprofile$/)]);
      const profile = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as { samples: unknown[] };
      expect(profile.samples.length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
