/**
 * The benchmark's child processes: the embedded exchange exactly as `npm start` runs it (the compiled
 * `dist/apps/exchange/src/main.js`) and the bare `node:http` baseline. Each listens on a free loopback
 * port; every child is killed and every temporary directory removed when the benchmark ends, fails or
 * is interrupted.
 *
 * Not `startAppProcess` from `@perp/testing`: it rebuilds `dist/` (which this benchmark runs from) and
 * finds the repository root from its own source location, which is wrong once compiled.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@perp/testing';

/** Admin token of every exchange the benchmark starts (only ever on 127.0.0.1). */
export const BENCH_ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;

/** Node options of the exchange as deploy/scripts/start.sh (npm start) gives them, source maps aside. */
export const EXCHANGE_NODE_ARGS: readonly string[] = [];

/**
 * `BENCH_CPU_PROF=DIR`: the exchange writes a V8 CPU profile into DIR when it stops;
 * `BENCH_HEAP_PROF=DIR`: a sampling heap profile (what is still held when it stops, by allocation site);
 * `BENCH_ALLOC_PROF=DIR`: a sampling profile of everything allocated, garbage included
 * (`allocation-profile.ts`). Of the cluster's processes (`app` given), only those of the apps
 * `BENCH_CPU_PROF_APPS` lists (e.g. `risk,gateway`).
 */
export function profileArgs(app?: string): string[] {
  const cpu = process.env.BENCH_CPU_PROF;
  const heap = process.env.BENCH_HEAP_PROF;
  const alloc = process.env.BENCH_ALLOC_PROF;
  if (!cpu && !heap && !alloc) return [];
  if (app !== undefined && !(process.env.BENCH_CPU_PROF_APPS ?? '').split(',').includes(app)) return [];
  const args: string[] = [];
  if (cpu) args.push('--cpu-prof', `--cpu-prof-dir=${cpu}`);
  if (heap) args.push('--heap-prof', `--heap-prof-dir=${heap}`);
  if (alloc) args.push('--require', join(__dirname, 'allocation-profile.js'));
  return args;
}

/** Limits far above what two users can send here: a 429 would measure the limiter, not the path. */
const UNLIMITED = '1000000000';

// Variables that change what the exchange is: taken from the caller's shell they would silently
// turn the embedded run into something else (a cluster bus, another database, a proxy list).
const CONFIG_VARS = [
  'PORT',
  'HOST',
  'CHAIN',
  'DEPLOY_DIR',
  'DATA_DIR',
  'BUS',
  'KAFKA_BROKERS',
  'KAFKA_CLIENT_ID',
  'DATABASE_URL',
  'REDIS_URL',
  'ADMIN_TOKEN',
  'TRUSTED_PROXIES',
  'JWT_SECRET',
  'JWT_TTL_SECONDS',
  'API_KEY_MASTER_KEY',
  'API_KEY_MASTER_KEY_PREVIOUS',
  'LOG_LEVEL',
  'RATE_LIMIT_WEIGHT_PER_MIN',
  'RATE_LIMIT_ORDERS_PER_10S',
  'RATE_LIMIT_ORDERS_PER_MIN',
  'RATE_LIMIT_LOGIN_PER_MIN',
  'UPSTREAM_TIMEOUT_MS',
  'PRICE_SOURCE',
  'PRICE_FEED_INTERVAL_MS',
  'PRICE_FEED_SEED',
];

export interface ChildServer {
  name: string;
  url: string;
  pid: number | undefined;
  /** The child's stdout and stderr so far (the last 64 KiB). */
  output: () => string;
  /** SIGTERM, SIGKILL after a grace period; then its temporary directory is removed. */
  stop: () => Promise<void>;
}

// Synchronous cleanups, run on any exit path (a `finally` may never run on SIGINT).
const cleanups = new Set<() => void>();
let hooked = false;

function runCleanups(): void {
  for (const c of [...cleanups]) {
    cleanups.delete(c);
    try {
      c();
    } catch {
      /* best effort: the process is going away */
    }
  }
}

function hookProcessExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', runCleanups);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(signal, () => {
      runCleanups();
      process.exit(130);
    });
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux; undefined elsewhere or
 * once it is gone). Clock ticks are taken as 100 Hz, the Linux default (USER_HZ).
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Kills every child still running and removes every temporary directory. */
export function stopAllChildren(): void {
  runCleanups();
}

export interface StartOptions {
  name: string;
  /** Compiled entry point. */
  script: string;
  /** Node options before the script (default none). */
  nodeArgs?: string[];
  env: Record<string, string>;
  /** Working directory (the repository root: `deploy/` is read relative to it). */
  cwd: string;
  readyTimeoutMs: number;
  /** Removed after the child stops. */
  tempDir?: string;
}

/**
 * `BENCH_PIN=1` (Linux, `taskset`): every server child runs on CPU 0 and the benchmark itself (the
 * load generator) on CPU 1, so neither takes the other's core. On a shared machine two trees are
 * compared by CPU per request, which pinning keeps apart from the client's work; the exchange's
 * database thread then shares CPU 0 with its event loop.
 */
const PIN = process.env.BENCH_PIN === '1';
let pinnedSelf = false;

/** With BENCH_PIN=1, moves every thread of this process to CPU 1 (once). */
export function pinBenchmark(): void {
  if (!PIN || pinnedSelf) return;
  pinnedSelf = true;
  const r = spawnSync('taskset', ['-a', '-pc', '1', String(process.pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`BENCH_PIN: taskset failed: ${r.stderr || r.error?.message}`);
}

/** Spawns `node script` with PORT and HOST set, and waits for its `/readyz` to answer 200. */
export async function startChild(o: StartOptions): Promise<ChildServer> {
  hookProcessExit();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of CONFIG_VARS) delete env[k];
  Object.assign(env, { ...o.env, HOST: '127.0.0.1', PORT: String(port) });

  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString('utf8');
    if (out.length > 65_536) out = out.slice(-65_536);
  };
  pinBenchmark();
  const argv = [...(o.nodeArgs ?? []), o.script];
  // taskset execs node in place: the pid is the server's.
  const child: ChildProcess = spawn(
    PIN ? 'taskset' : process.execPath,
    PIN ? ['-c', '0', process.execPath, ...argv] : argv,
    {
      cwd: o.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const kill = () => {
    if (alive()) child.kill('SIGKILL');
    if (o.tempDir) rmSync(o.tempDir, { recursive: true, force: true });
  };
  cleanups.add(kill);

  const stop = async () => {
    if (alive()) {
      child.kill('SIGTERM');
      const grace = setTimeout(() => alive() && child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(grace);
    }
    cleanups.delete(kill);
    kill();
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + o.readyTimeoutMs;
  for (;;) {
    if (!alive()) {
      await stop();
      throw new Error(
        `${o.name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out}`,
      );
    }
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${o.name} not ready after ${o.readyTimeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: o.name, url, pid: child.pid, output: () => out, stop };
}

export interface ExchangeOptions {
  repoRoot: string;
  /** `postgres://…` for the server-database rows; unset: embedded PGlite as `npm start`. */
  databaseUrl?: string;
  readyTimeoutMs: number;
}

/**
 * The embedded exchange (memory bus journaled in a fresh temporary DATA_DIR, PRICE_SOURCE=admin) with
 * request and order limits lifted. With a database URL it also gets the JWT secret and API-key master
 * key that mode requires.
 */
export function startExchange(o: ExchangeOptions): Promise<ChildServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-bench-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    PRICE_SOURCE: 'admin',
    RATE_LIMIT_WEIGHT_PER_MIN: UNLIMITED,
    RATE_LIMIT_ORDERS_PER_10S: UNLIMITED,
    RATE_LIMIT_ORDERS_PER_MIN: UNLIMITED,
  };
  if (o.databaseUrl) {
    env.DATABASE_URL = o.databaseUrl;
    env.JWT_SECRET = randomBytes(32).toString('hex');
    env.API_KEY_MASTER_KEY = randomBytes(32).toString('hex');
  }
  return startChild({
    name: o.databaseUrl ? 'exchange (Postgres server)' : 'exchange (embedded)',
    script: join(o.repoRoot, 'dist/apps/exchange/src/main.js'),
    nodeArgs: [...EXCHANGE_NODE_ARGS, ...profileArgs()],
    env,
    cwd: o.repoRoot,
    readyTimeoutMs: o.readyTimeoutMs,
    tempDir: dataDir,
  });
}

/** The bare `node:http` baseline (`bare-server.js` beside this file once compiled). */
export function startBareServer(repoRoot: string): Promise<ChildServer> {
  return startChild({
    name: 'bare node:http',
    script: join(__dirname, 'bare-server.js'),
    env: {},
    cwd: repoRoot,
    readyTimeoutMs: 10_000,
  });
}
