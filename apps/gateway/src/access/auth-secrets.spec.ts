import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAppConfig } from '@perp/runtime';
import { authSecretsFor } from './auth-secrets';

describe('authSecretsFor', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'access-secrets-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('embedded (no DATABASE_URL): generates both secrets into DATA_DIR once and reuses them', async () => {
    const config = loadAppConfig({ DATA_DIR: dir });
    const first = await authSecretsFor(config);
    expect((await readdir(dir)).sort()).toEqual(['api-key-master.key', 'jwt-secret.key']);
    const second = await authSecretsFor(config);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.masterKeys.currentKeyId).toBe(first.masterKeys.currentKeyId);
  });

  it('with a database (replicas possible): requires them, naming the variable only', async () => {
    const config = loadAppConfig({ DATA_DIR: dir, DATABASE_URL: 'postgres://db/x' });
    await expect(authSecretsFor(config)).rejects.toThrow(/API_KEY_MASTER_KEY: required/);
    await expect(authSecretsFor({ ...config, API_KEY_MASTER_KEY: 'ab'.repeat(32) })).rejects.toThrow(
      /JWT_SECRET: required/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('uses the configured values and validates them', async () => {
    const config = loadAppConfig({
      DATABASE_URL: 'postgres://db/x',
      JWT_SECRET: 'j'.repeat(40),
      JWT_TTL_SECONDS: '600',
      API_KEY_MASTER_KEY: 'ab'.repeat(32),
    });
    const s = await authSecretsFor(config);
    expect([s.jwtSecret, s.jwtTtlSeconds]).toEqual(['j'.repeat(40), 600]);
    await expect(authSecretsFor({ ...config, JWT_SECRET: 'short' })).rejects.toThrow(/JWT_SECRET/);
    await expect(authSecretsFor({ ...config, API_KEY_MASTER_KEY: 'ab' })).rejects.toThrow(
      /API_KEY_MASTER_KEY/,
    );
  });
});
