import { ensureBuilt, REPO_ROOT } from '@perp/testing';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Starts an app's built entry point with `env` and returns how it ended (it must not get far). */
function start(app: string, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-errors-'));
  try {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, `dist/apps/${app}/src/main.js`)], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, stderr: r.stderr, stdout: r.stdout };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// A bad value stops the process with exit code 1 and one message naming each bad variable, the
// auth secrets included (checked before Nest builds the modules), never with a stack trace.
describe('configuration errors at start', () => {
  beforeAll(() => ensureBuilt());

  it('the embedded exchange: a bad number first, then every bad auth secret in one message', () => {
    const r = start('exchange', {
      JWT_SECRET: 'short',
      JWT_TTL_SECONDS: '5',
      API_KEY_MASTER_KEY: 'zz',
      KEEPER_TICK_MS: '1e3',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'exchange: invalid configuration:\n  KEEPER_TICK_MS: a whole number (digits only)\n',
    );
    const auth = start('exchange', { JWT_SECRET: 'short', JWT_TTL_SECONDS: '5', API_KEY_MASTER_KEY: 'zz' });
    expect(auth.status).toBe(1);
    expect(auth.stderr).toBe(
      'exchange: invalid configuration:\n' +
        '  API_KEY_MASTER_KEY: 32 bytes as 64 hex digits or base64\n' +
        '  JWT_SECRET: at least 32 characters\n' +
        '  JWT_TTL_SECONDS: Too small: expected number to be >=60\n',
    );
    expect(auth.stdout).not.toMatch(/Nest|\s+at /);
  });

  it('a gateway with a database needs both secrets given', () => {
    const r = start('gateway', { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'gateway: invalid configuration:\n' +
        '  API_KEY_MASTER_KEY: required when there is no data directory\n' +
        '  JWT_SECRET: required when there is no data directory\n',
    );
  });
});
