import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

export const REPO_ROOT = join(__dirname, '..', '..', '..');
let built = false;

/**
 * Compiles dist/ once per test file, so a process test runs the code under test. Not when the
 * test command built it just before (`DIST_BUILT=1`, deploy/scripts/test.sh): its test processes
 * run side by side, and a rebuild (rm -rf dist) would pull files from under the other's children.
 */
export function ensureBuilt(): void {
  const main = join(REPO_ROOT, 'dist/apps/exchange/src/main.js');
  if ((built || process.env.DIST_BUILT === '1') && existsSync(main)) return;
  execFileSync('bash', [join(REPO_ROOT, 'deploy/scripts/build.sh')], { cwd: REPO_ROOT, stdio: 'inherit' });
  built = true;
}

/**
 * A new embedded database directory (any app without DATABASE_URL) costs PGlite's initdb: about
 * 6 s of CPU, most of a process test's start on 2 cores. A process test on a new data directory
 * starts from a copy of an empty cluster made once per machine and PGlite version instead (the
 * app then migrates it as on any start); the start from nothing is what `embedded-postgres.spec.ts`
 * and `npm start` go through.
 */
function seedEmbeddedDatabase(dataDir: string): void {
  const pg = join(dataDir, 'pg');
  if (existsSync(pg)) return;
  const pglite = join(REPO_ROOT, 'node_modules/@electric-sql/pglite');
  const { version } = JSON.parse(readFileSync(join(pglite, 'package.json'), 'utf8')) as { version: string };
  const template = join(tmpdir(), `perp-pglite-empty-${version}`);
  if (!existsSync(template)) {
    // Made aside and renamed into place: test processes running side by side may race to make it.
    const making = `${template}.${process.pid}`;
    rmSync(making, { recursive: true, force: true });
    execFileSync(
      process.execPath,
      [
        '-e',
        `import('@electric-sql/pglite').then(async ({ PGlite }) => (await PGlite.create(${JSON.stringify(making)})).close())`,
      ],
      { cwd: REPO_ROOT, stdio: 'inherit' },
    );
    try {
      renameSync(making, template);
    } catch (e) {
      rmSync(making, { recursive: true, force: true });
      if (!existsSync(template)) throw e;
    }
  }
  cpSync(template, pg, { recursive: true });
}

export interface RunningApp {
  url: string;
  dataDir: string;
  port: number;
  child: ChildProcess;
  output: () => string;
  /** Sends a signal and waits for the process to exit. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/** A port found free can be taken (by another test process's socket) before the child binds it. */
class PortTaken extends Error {}

/**
 * Starts an app's compiled entry point as a real child process and waits for /readyz. A child that
 * lost its free port to another process before binding it is started again on another one.
 */
export async function startAppProcess(
  app = 'exchange',
  env: Record<string, string> = {},
  // Generous: on a loaded 2-core machine an embedded start (initdb, migrations) can take 20 s and more.
  readyTimeoutMs = 60_000,
): Promise<RunningApp> {
  ensureBuilt();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(app, env, readyTimeoutMs, await freePort());
    } catch (e) {
      if (!(e instanceof PortTaken) || attempt >= 3) throw e;
    }
  }
}

async function startOnce(
  app: string,
  env: Record<string, string>,
  readyTimeoutMs: number,
  port: number,
): Promise<RunningApp> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), `perp-${app}-`));
  if (!(env.DATABASE_URL ?? process.env.DATABASE_URL)) seedEmbeddedDatabase(dataDir);
  let out = '';
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', join(REPO_ROOT, `dist/apps/${app}/src/main.js`)],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      const message = `${app} exited with ${child.exitCode}:\n${out}`;
      throw out.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`)
        ? new PortTaken(message)
        : new Error(message);
    }
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} not ready after ${readyTimeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    dataDir,
    port,
    child,
    output: () => out,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
