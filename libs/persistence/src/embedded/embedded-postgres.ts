import { chmod, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { lockDataDir } from './data-dir-lock';

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
 * on a local TCP port. The application then uses the same `pg` driver, TypeORM and migrations as
 * against a real server. Durability: a commit is written to the files (write(2)) before it returns,
 * so data survives the process being killed; PGlite's fsync is a no-op, so an OS crash or a power
 * loss may lose the latest commits.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dirname(dataDir), { recursive: true });
  // PGlite creates its files with mode 0666; a private directory keeps other local users out.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const lock = await lockDataDir(`${dataDir}.lock`);
  try {
    // ESM-only at run time (their CommonJS builds import() themselves); swc keeps import() as is.
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    const db = await PGlite.create(dataDir);
    const server = new PGLiteSocketServer({
      db,
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      maxConnections: MAX_SOCKET_CONNECTIONS,
    });
    try {
      await server.start();
    } catch (e) {
      await db.close();
      throw e;
    }
    const [host, port] = splitHostPort(server.getServerConn());
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://postgres@${host}:${port}/postgres`,
      dataDir,
      stop: () =>
        (stopped ??= (async () => {
          try {
            await server.stop();
            await db.close();
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

function splitHostPort(conn: string): [string, number] {
  const at = conn.lastIndexOf(':');
  const port = Number(conn.slice(at + 1));
  if (at < 0 || !Number.isInteger(port) || port <= 0) throw new Error(`unexpected server address ${conn}`);
  return [conn.slice(0, at), port];
}
