import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { lockDataDir } from './data-dir-lock';
import type { PostgresThreadData, PostgresThreadMessage } from './embedded-postgres.worker';

export interface EmbeddedPostgresOptions {
  /** Where the database files live (created on first start). */
  dataDir: string;
  /** Default 127.0.0.1: nothing outside this machine may reach an unauthenticated server. */
  host?: string;
  /** Default 0: a free port chosen by the OS. */
  port?: number;
}

export interface EmbeddedPostgres {
  /** `postgres://` URL for the `pg` driver. */
  url: string;
  dataDir: string;
  /**
   * The database thread's OS id on Linux, where it runs DATABASE_THREAD_NICENESS below the
   * process (thread-priority.ts); undefined where its priority could not be lowered.
   */
  threadId?: number;
  /** Closes the socket server, then the database (a clean shutdown checkpoint), then the lock. */
  stop: () => Promise<void>;
}

/**
 * Pool size to use against the embedded server. PGlite is one Postgres backend in this process:
 * every connection of the socket server shares its single session, and statements run one at a
 * time anyway. One connection keeps sessions and transactions from interleaving; callers must
 * therefore run every statement of a transaction through that transaction's EntityManager.
 */
export const EMBEDDED_POOL_SIZE = 1;

/**
 * Room for a reconnect of the single pooled connection while the old socket is still closing, and
 * for an operator's psql (which shares the session: debugging only).
 */
const MAX_SOCKET_CONNECTIONS = 4;

/**
 * Postgres for the embedded exchange without installing Postgres: PGlite (Postgres compiled to
 * WASM, files on disk) behind @electric-sql/pglite-socket, which speaks the Postgres wire protocol
 * on a local TCP port, both in a worker thread of this process (embedded-postgres.worker.ts): the
 * database executes on the second core instead of the event loop, at a lower priority than the
 * loop where the OS allows it (thread-priority.ts). The application then uses the
 * same `pg` driver, TypeORM and migrations as against a real server. Durability: a commit is
 * written to the files (write(2)) before it returns, so data survives the process being killed;
 * PGlite's fsync is a no-op, so an OS crash or a power loss may lose the latest commits.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dirname(dataDir), { recursive: true });
  // PGlite creates its files with mode 0666; a private directory keeps other local users out.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const lock = await lockDataDir(`${dataDir}.lock`);
  try {
    const data: PostgresThreadData = {
      dataDir,
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      maxConnections: MAX_SOCKET_CONNECTIONS,
    };
    const thread = new Worker(join(__dirname, 'embedded-postgres.worker.js'), { workerData: data });
    const started = await ready(thread);
    const [host, port] = splitHostPort(started.conn);
    let stopping = false;
    thread.once('exit', (code) => {
      // The database is gone under a running exchange: nothing it does from here can be kept.
      if (!stopping) throw new Error(`the embedded database thread exited (code ${code})`);
    });
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://postgres@${host}:${port}/postgres`,
      dataDir,
      threadId: started.threadId,
      stop: () =>
        (stopped ??= (async () => {
          stopping = true;
          try {
            const exited = new Promise((r) => thread.once('exit', r));
            thread.postMessage('stop');
            await exited;
          } finally {
            await lock.release();
          }
        })()),
    };
  } catch (e) {
    await lock.release();
    throw e;
  }
}

/** The thread's ready message once it serves; rejects with its error if it could not start. */
function ready(thread: Worker): Promise<Extract<PostgresThreadMessage, { type: 'ready' }>> {
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => {
      thread.off('message', onMessage);
      reject(e);
    };
    const onMessage = (m: PostgresThreadMessage) => {
      if (m.type === 'ready') {
        thread.off('error', fail);
        thread.off('exit', onExit);
        resolve(m);
      } else if (m.type === 'failed') fail(new Error(`embedded database: ${m.message}`));
    };
    const onExit = (code: number) => fail(new Error(`the embedded database thread exited (code ${code})`));
    thread.on('message', onMessage);
    thread.once('error', fail);
    thread.once('exit', onExit);
  });
}

function splitHostPort(conn: string): [string, number] {
  const at = conn.lastIndexOf(':');
  const port = Number(conn.slice(at + 1));
  if (at < 0 || !Number.isInteger(port) || port <= 0) throw new Error(`unexpected server address ${conn}`);
  return [conn.slice(0, at), port];
}
