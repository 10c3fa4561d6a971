import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decryptSecret, encryptSecret, MasterKeyring } from '../secrets/secret-cipher';
import { DEFAULT_JWT_TTL_SECONDS, JWT_SECRET_FILE, loadAuthSecrets, MASTER_KEY_FILE } from './auth-config';

describe('loadAuthSecrets', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'auth-config-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('embedded mode: generates the master key and JWT secret once in the data directory', async () => {
    const a = await loadAuthSecrets({}, { dataDir: dir });
    expect(a.jwtTtlSeconds).toBe(DEFAULT_JWT_TTL_SECONDS);
    expect(a.jwtSecret).toMatch(/^[0-9a-f]{64}$/);
    for (const f of [MASTER_KEY_FILE, JWT_SECRET_FILE])
      expect((await stat(join(dir, f))).mode & 0o777).toBe(0o600);
    const b = await loadAuthSecrets({}, { dataDir: dir });
    expect(b.jwtSecret).toBe(a.jwtSecret);
    expect(b.masterKeys.currentKeyId).toBe(a.masterKeys.currentKeyId);
    expect(decryptSecret(encryptSecret('s', a.masterKeys), b.masterKeys)).toBe('s');
  });

  it('prefers the environment, with previous master keys for rotation', async () => {
    const current = randomBytes(32);
    const old = randomBytes(32);
    const s = await loadAuthSecrets(
      {
        API_KEY_MASTER_KEY: current.toString('base64'),
        API_KEY_MASTER_KEY_PREVIOUS: old.toString('hex'),
        JWT_SECRET: 'j'.repeat(40),
        JWT_TTL_SECONDS: '3600',
      },
      { dataDir: dir },
    );
    expect(s.jwtSecret).toBe('j'.repeat(40));
    expect(s.jwtTtlSeconds).toBe(3600);
    expect(s.masterKeys.currentKeyId).toBe(new MasterKeyring(current).currentKeyId);
    expect(decryptSecret(encryptSecret('x', new MasterKeyring(old)), s.masterKeys)).toBe('x');
  });

  it('cluster mode (no data directory): both secrets are required', async () => {
    await expect(loadAuthSecrets({ JWT_SECRET: 'j'.repeat(32) })).rejects.toThrow(
      'API_KEY_MASTER_KEY: required',
    );
    await expect(loadAuthSecrets({ API_KEY_MASTER_KEY: 'ab'.repeat(32) })).rejects.toThrow(
      'JWT_SECRET: required',
    );
  });

  it("takes JWT_TTL_SECONDS in plain digits only (@perp/runtime's wholeNumber)", async () => {
    for (const bad of ['', ' ', '1e3', '0x100', '3600.0', ' 3600'])
      await expect(loadAuthSecrets({ JWT_TTL_SECONDS: bad }, { dataDir: dir })).rejects.toThrow(
        'JWT_TTL_SECONDS: a whole number (digits only)',
      );
    expect((await loadAuthSecrets({ JWT_TTL_SECONDS: '60' }, { dataDir: dir })).jwtTtlSeconds).toBe(60);
  });

  it('lists every bad variable without echoing secret values', async () => {
    const badKey = 'zz'.repeat(32);
    const err = await loadAuthSecrets(
      {
        API_KEY_MASTER_KEY: badKey,
        API_KEY_MASTER_KEY_PREVIOUS: 'short',
        JWT_SECRET: 'tooshort',
        JWT_TTL_SECONDS: '10',
      },
      { dataDir: dir },
    ).catch((e: Error) => e);
    expect((err as Error).message).toMatch(
      /API_KEY_MASTER_KEY:[\s\S]*API_KEY_MASTER_KEY_PREVIOUS:[\s\S]*JWT_SECRET:[\s\S]*JWT_TTL_SECONDS:/,
    );
    expect((err as Error).message).not.toContain(badKey);
    expect((err as Error).message).not.toContain('tooshort');
  });
});
