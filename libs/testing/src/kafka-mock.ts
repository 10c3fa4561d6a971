import { type ChildProcess, spawn } from 'node:child_process';

export interface KafkaMock {
  /** host:port of each mock broker. */
  brokers: string[];
  /** The kcat process (its CPU time is part of a cluster benchmark's cost). */
  pid: number | undefined;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * librdkafka's mock cluster, started by Debian's kcat (deploy/scripts/ensure-services.sh installs
 * it): produce, fetch, consumer groups and offsets work; topics are auto-created with 4 partitions;
 * admin CreateTopics, idempotent producers and transactions do not. Lives until `stop()` or until
 * this process exits.
 *
 * Without `-d mock` kcat still logs the bootstrap servers (notice "... replaced with host:port,...");
 * the debug context would log every request the clients make.
 */
export function startKafkaMock(options: { brokers?: number; timeoutMs?: number } = {}): Promise<KafkaMock> {
  const count = options.brokers ?? 3;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const child = spawn(
    'kcat',
    ['-q', '-b', 'x:1', '-X', `test.mock.num.brokers=${count}`, '-C', '-t', '__hold'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  running.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(force);
    }
  };

  return new Promise<KafkaMock>((resolve, reject) => {
    let log = '';
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop();
      reject(new Error(`kafka mock: ${reason}${log ? `\n${log.slice(-2000)}` : ''}`));
    };
    const timer = setTimeout(() => fail(`no bootstrap servers after ${timeoutMs} ms`), timeoutMs);
    child.once('error', (e: NodeJS.ErrnoException) =>
      fail(e.code === 'ENOENT' ? 'kcat not found (run deploy/scripts/ensure-services.sh)' : e.message),
    );
    child.once('exit', (code, signal) => fail(`kcat exited (${signal ?? code})`));
    child.stderr!.setEncoding('utf8');
    const onData = (chunk: string) => {
      if (settled) return;
      log += chunk;
      const m = /(?:bootstrap\.servers=|replaced with )(\S+)/.exec(log);
      if (!m) return;
      settled = true;
      clearTimeout(timer);
      log = '';
      child.stderr!.off('data', onData);
      child.stderr!.resume(); // keep draining: a full pipe would block kcat
      resolve({ brokers: m[1]!.split(','), pid: child.pid, stop });
    };
    child.stderr!.on('data', onData);
  });
}
