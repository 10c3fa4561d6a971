import { MIGRATIONS } from '../migrations';
import { DATABASE_THREAD_NICENESS } from './thread-priority';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The embedded database runs in child processes: PGlite is ESM and Jest's CommonJS runtime cannot
 * import() it. The children run this library compiled by swc with the build's .swcrc into a private
 * directory (not dist/, which other test files rebuild concurrently), with the libraries it imports.
 */
const REPO = join(__dirname, '..', '..', '..', '..');
const INITIAL = MIGRATIONS.map((m) => m.name);
/** This library and what it imports (contracts for its ids, and what contracts imports). */
const COMPILED = ['persistence', 'contracts', 'domain', 'runtime'].map((lib) => `libs/${lib}/src`);

interface ProbeResult {
  applied: string[];
  values: string[];
  incomes: string[];
  pid: number;
  dbThread?: number;
}

/** A Linux thread's nice value (field 19 of /proc/<pid>/task/<tid>/stat, counted after the name). */
function niceOf(pid: number, tid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

let outDir: string;
let probeJs: string;
const dataDirs: string[] = [];
const children = new Set<ChildProcess>();

beforeAll(() => {
  mkdirSync(join(REPO, 'tmp'), { recursive: true });
  outDir = mkdtempSync(join(REPO, 'tmp', 'persistence-probe-'));
  chmodSync(outDir, 0o755);
  execFileSync(
    join(REPO, 'node_modules', '.bin', 'swc'),
    [...COMPILED, '-d', outDir, '--config-file', '.swcrc', '--ignore', '**/*.spec.ts', '--quiet'],
    { cwd: REPO, stdio: 'inherit' },
  );
  probeJs = join(outDir, 'libs', 'persistence', 'src', 'embedded', 'embedded-probe.js');
});

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(outDir, { recursive: true, force: true });
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(uid?: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'perp-embedded-pg-'));
  if (uid !== undefined) chownSync(dir, uid, uid);
  dataDirs.push(dir);
  return dir;
}

/** Starts the probe; resolves with its report and a way to wait for (or force) its exit. */
function probe(dataDir: string, value: string, opts: { hold?: boolean; uid?: number } = {}) {
  const child = spawn(process.execPath, [probeJs, dataDir, value, ...(opts.hold ? ['--hold'] : [])], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  const report = new Promise<ProbeResult>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line) as ProbeResult);
    });
    void exited.then((code) => reject(new Error(`probe exited with ${code} before reporting:\n${err}`)));
  });
  report.catch(() => undefined); // only an awaited report may fail a test (the intruder never reports)
  return { child, report, exited, stderr: () => err };
}

describe('embedded Postgres (PGlite behind the wire protocol, in child processes)', () => {
  it('keeps committed data across a kill and restarts, migrates once, and locks its directory', async () => {
    const dataDir = newDataDir();

    const first = probe(dataDir, 'A', { hold: true });
    const report = await first.report;
    expect(report).toMatchObject({ applied: INITIAL, values: [], incomes: [] });
    // The database thread runs below the event loop's priority (Linux: nice per thread).
    if (process.platform === 'linux') {
      expect(report.dbThread).toEqual(expect.any(Number));
      expect(report.dbThread).not.toBe(report.pid);
      expect(niceOf(report.pid, report.dbThread!) - niceOf(report.pid, report.pid)).toBe(
        Math.min(DATABASE_THREAD_NICENESS, 19 - niceOf(report.pid, report.pid)),
      );
    }

    const intruder = probe(dataDir, 'X');
    expect(await intruder.exited).toBe(1);
    expect(intruder.stderr()).toContain(`the embedded database is in use by process ${first.child.pid}`);

    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dataDir, 'pg.lock'))).toBe(true);

    const second = probe(dataDir, 'B');
    expect(await second.report).toMatchObject({
      applied: [],
      values: ['A'],
      incomes: ['123456789.123456789012345678'],
    });
    expect(await second.exited).toBe(0);

    const third = probe(dataDir, 'C');
    expect(await third.report).toMatchObject({
      applied: [],
      values: ['A', 'B'],
      incomes: ['123456789.123456789012345678', '223456789.123456789012345678'],
    });
    expect(await third.exited).toBe(0);
    expect(existsSync(join(dataDir, 'pg.lock'))).toBe(false);
    expect(statSync(join(dataDir, 'pg')).mode & 0o777).toBe(0o700);
  }, 90_000);

  it(`runs as an unprivileged user${process.getuid?.() === 0 ? ' (here: nobody, as the tests run as root)' : ''}`, async () => {
    // As root, also prove the non-root case; as a normal user the test above already was one.
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    const dataDir = newDataDir(uid);
    const first = probe(join(dataDir, 'data'), 'N1', { uid });
    expect(await first.report).toMatchObject({ applied: INITIAL, values: [] });
    expect(await first.exited).toBe(0);
    const second = probe(join(dataDir, 'data'), 'N2', { uid });
    expect(await second.report).toMatchObject({ applied: [], values: ['N1'] });
    expect(await second.exited).toBe(0);
    if (uid !== undefined) expect(statSync(join(dataDir, 'data', 'pg')).uid).toBe(uid);
  }, 90_000);

  it("fails the start with the database thread's error, and releases the directory", async () => {
    // A data directory PGlite cannot open (another Postgres major version): its thread reports it.
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'pg'), { mode: 0o700 });
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '99\n');
    const first = probe(dataDir, 'V');
    expect(await first.exited).toBe(1);
    expect(first.stderr()).toContain('embedded database: Error: PGlite failed to initialize');
    expect(existsSync(join(dataDir, 'pg.lock'))).toBe(false);
    // The same error again, not "in use": nothing of the failed start is left behind.
    const second = probe(dataDir, 'W');
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain('PGlite failed to initialize');
  }, 60_000);
});
