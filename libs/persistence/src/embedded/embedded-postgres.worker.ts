/**
 * The embedded database's own thread: PGlite (Postgres compiled to WASM) and its socket server run
 * here, so statements execute beside the exchange's event loop instead of inside it (a projector's
 * transaction no longer holds up order replies and socket frames). Started by embedded-postgres.ts;
 * a compiled file, never loaded under Jest (whose CommonJS runtime cannot import PGlite anyway).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from './thread-priority';

export interface PostgresThreadData {
  dataDir: string;
  host: string;
  port: number;
  maxConnections: number;
}

/**
 * What the thread tells its starter: its address (and its OS thread id where its priority was
 * lowered) once it serves, or why it could not.
 */
export type PostgresThreadMessage =
  { type: 'ready'; conn: string; threadId?: number } | { type: 'failed'; message: string };

async function main(port: NonNullable<typeof parentPort>, data: PostgresThreadData): Promise<void> {
  const tell = (m: PostgresThreadMessage) => port.postMessage(m);
  // The database is the projections' and snapshots' store, behind the log: when both cores are
  // busy, the event loop answering orders goes first and the statements wait for a free core.
  const threadId = lowerThreadPriority();
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create(data.dataDir);
  const server = new PGLiteSocketServer({
    db,
    host: data.host,
    port: data.port,
    maxConnections: data.maxConnections,
  });
  try {
    await server.start();
  } catch (e) {
    await db.close();
    throw e;
  }
  // Any message means stop: close the server, then the database (a clean checkpoint); the thread
  // then exits, which is what the starter waits for.
  port.once('message', () => {
    void (async () => {
      try {
        await server.stop();
        await db.close();
      } finally {
        port.close();
      }
    })();
  });
  tell({ type: 'ready', conn: server.getServerConn(), threadId });
}

if (parentPort) {
  const port = parentPort;
  main(port, workerData as PostgresThreadData).catch((e: unknown) => {
    port.postMessage({
      type: 'failed',
      message: e instanceof Error ? (e.stack ?? e.message) : String(e),
    } satisfies PostgresThreadMessage);
    port.close();
  });
}
