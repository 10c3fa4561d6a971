/**
 * The Postgres database of the server-database rows: `BENCH_DATABASE_URL`, by default
 * `postgres://postgres@127.0.0.1:5432/perp_bench`. It is dropped and created anew before the run (a
 * fresh DATA_DIR journal next to old snapshots and history would not be the state of a fresh start),
 * so its name must contain "bench": the benchmark never wipes a database that is not its own.
 */
import { Client } from 'pg';

export const DEFAULT_BENCH_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/perp_bench';

export type DatabaseCheck = { ok: true; url: string } | { ok: false; reason: string };

/** Recreates the bench database; `ok: false` with the reason when Postgres cannot be used. */
export async function freshBenchDatabase(url: string): Promise<DatabaseCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: `BENCH_DATABASE_URL is not a URL: ${url}` };
  }
  const name = decodeURIComponent(parsed.pathname.slice(1));
  if (!/^[A-Za-z0-9_]*bench[A-Za-z0-9_]*$/.test(name))
    return {
      ok: false,
      reason: `database "${name}" is dropped and recreated each run, so its name must contain "bench" (letters, digits, _)`,
    };
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
  } catch (e) {
    return { ok: false, reason: `Postgres unreachable at ${parsed.host}: ${(e as Error).message}` };
  }
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
    return { ok: true, url };
  } catch (e) {
    return { ok: false, reason: `cannot recreate database "${name}": ${(e as Error).message}` };
  } finally {
    await client.end();
  }
}
