import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, chmod, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { generateApiKey, isApiKeyFormat } from './api-keys';
import { loadOrCreateKeyFile } from './key-file';
import {
  decryptSecret,
  encryptSecret,
  MasterKeyring,
  parseMasterKey,
  SecretDecryptionError,
} from './secret-cipher';

describe('generateApiKey', () => {
  it('gives 64-hex api and secret keys, different every time', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    for (const k of [a.apiKey, a.secretKey, b.apiKey, b.secretKey]) expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set([a.apiKey, a.secretKey, b.apiKey, b.secretKey]).size).toBe(4);
    expect(isApiKeyFormat(a.apiKey)).toBe(true);
    expect(isApiKeyFormat(a.apiKey.toUpperCase())).toBe(false);
    expect(isApiKeyFormat(a.apiKey.slice(1))).toBe(false);
    expect(isApiKeyFormat(undefined)).toBe(false);
  });
});

describe('parseMasterKey', () => {
  const key = randomBytes(32);

  it('accepts 64 hex digits and base64 or base64url of 32 bytes', () => {
    expect(parseMasterKey(key.toString('hex'))).toEqual(key);
    expect(parseMasterKey(key.toString('hex').toUpperCase())).toEqual(key);
    expect(parseMasterKey(key.toString('base64'))).toEqual(key);
    expect(parseMasterKey(key.toString('base64url'))).toEqual(key);
    expect(parseMasterKey(` ${key.toString('base64')}\n`)).toEqual(key);
  });

  it('rejects other lengths and encodings without echoing the value', () => {
    const bad = [
      key.toString('hex').slice(2),
      randomBytes(31).toString('base64'),
      randomBytes(33).toString('base64'),
      'x'.repeat(64),
      key.toString('base64').slice(0, 42) + '!=',
      '',
    ];
    for (const v of bad) {
      expect(() => parseMasterKey(v)).toThrow('API_KEY_MASTER_KEY: expected 32 bytes');
      try {
        parseMasterKey(v);
      } catch (e) {
        if (v) expect((e as Error).message).not.toContain(v);
      }
    }
  });
});

describe('encryptSecret / decryptSecret', () => {
  const keyring = new MasterKeyring(randomBytes(32));
  const secret = generateApiKey().secretKey;

  it('round-trips and never writes the secret in clear', () => {
    const blob = encryptSecret(secret, keyring, 'api-key-1');
    expect(blob).toMatch(/^v1:[0-9a-f]{8}:[\w-]{16}:[\w-]+:[\w-]{22}$/);
    expect(blob).not.toContain(secret);
    expect(blob.split(':')[1]).toBe(keyring.currentKeyId);
    expect(decryptSecret(blob, keyring, 'api-key-1')).toBe(secret);
  });

  it('uses a fresh IV each time', () => {
    const a = encryptSecret(secret, keyring);
    const b = encryptSecret(secret, keyring);
    expect(a).not.toBe(b);
    expect(a.split(':')[2]).not.toBe(b.split(':')[2]);
  });

  it('rejects a tampered ciphertext, IV, tag, key id or version', () => {
    const blob = encryptSecret(secret, keyring);
    const parts = blob.split(':');
    const flip = (s: string) => {
      const b = Buffer.from(s, 'base64url');
      b[0] ^= 1;
      return b.toString('base64url');
    };
    const tampered = [
      [parts[0], parts[1], flip(parts[2]!), parts[3], parts[4]],
      [parts[0], parts[1], parts[2], flip(parts[3]!), parts[4]],
      [parts[0], parts[1], parts[2], parts[3], flip(parts[4]!)],
      [parts[0], 'deadbeef', parts[2], parts[3], parts[4]],
      ['v2', parts[1], parts[2], parts[3], parts[4]],
      [parts[0], parts[1], parts[2], parts[3]],
    ].map((p) => p.join(':'));
    for (const t of tampered) expect(() => decryptSecret(t, keyring)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(blob.slice(0, -2), keyring)).toThrow(SecretDecryptionError);
  });

  it('does not decrypt under another context (a ciphertext moved to another row)', () => {
    const blob = encryptSecret(secret, keyring, 'api-key-1');
    expect(() => decryptSecret(blob, keyring, 'api-key-2')).toThrow(SecretDecryptionError);
  });

  it('does not decrypt under another master key', () => {
    const blob = encryptSecret(secret, keyring);
    expect(() => decryptSecret(blob, new MasterKeyring(randomBytes(32)))).toThrow(SecretDecryptionError);
  });

  it('rotates: a new current key still decrypts what the previous key encrypted', () => {
    const oldKey = randomBytes(32);
    const before = new MasterKeyring(oldKey);
    const blob = encryptSecret(secret, before, 'k');
    const after = new MasterKeyring(randomBytes(32), [oldKey]);
    expect(after.needsReencryption(blob)).toBe(true);
    expect(decryptSecret(blob, after, 'k')).toBe(secret);
    const again = encryptSecret(decryptSecret(blob, after, 'k'), after, 'k');
    expect(after.needsReencryption(again)).toBe(false);
    expect(() => decryptSecret(again, before, 'k')).toThrow(SecretDecryptionError);
  });

  it('never shows key material when a keyring is logged or serialised', () => {
    const key = randomBytes(32);
    const ring = new MasterKeyring(key);
    const shown = inspect(ring, { depth: 5, showHidden: true }) + JSON.stringify(ring);
    for (const form of ['hex', 'base64'] as const) expect(shown).not.toContain(key.toString(form));
    expect(shown).toContain(ring.currentKeyId);
  });

  it('refuses a master key of the wrong size', () => {
    expect(() => new MasterKeyring(randomBytes(16))).toThrow('32 bytes');
  });
});

describe('loadOrCreateKeyFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'auth-keyfile-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a 32-byte key with mode 0600 once, then reads the same key back', async () => {
    const sub = join(dir, 'data', 'nested');
    const first = await loadOrCreateKeyFile(sub, 'master.key');
    expect(first.length).toBe(32);
    expect((await stat(join(sub, 'master.key'))).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateKeyFile(sub, 'master.key')).toEqual(first);
    expect((await readFile(join(sub, 'master.key'), 'utf8')).trim()).toBe(first.toString('hex'));
    expect(await readdir(sub)).toEqual(['master.key']);
  });

  it('agrees on one key when several callers race to create it', async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateKeyFile(dir, 'race.key')));
    for (const k of keys) expect(k).toEqual(keys[0]);
    expect(await readdir(dir)).toEqual(['race.key']);
  });

  it('tightens a file readable by others and refuses a corrupt one without printing it', async () => {
    const path = join(dir, 'k.key');
    await writeFile(path, `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    await chmod(path, 0o644);
    expect((await loadOrCreateKeyFile(dir, 'k.key')).toString('hex')).toBe('ab'.repeat(32));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await writeFile(path, 'not-a-key-secretish');
    await expect(loadOrCreateKeyFile(dir, 'k.key')).rejects.toThrow('expected 64 lowercase hex digits');
    await expect(loadOrCreateKeyFile(dir, 'k.key')).rejects.not.toThrow('secretish');
  });
});
