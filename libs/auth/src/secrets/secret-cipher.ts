import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * Decodes a master key given as 64 hex digits or as base64 (standard or URL-safe) of 32 bytes.
 * The error names the expected form only: the value is a secret even when it is wrong.
 */
export function parseMasterKey(text: string, name = 'API_KEY_MASTER_KEY'): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const url = t.replace(/\+/g, '-').replace(/\//g, '_').replace(/=$/, '');
    const key = Buffer.from(url, 'base64url');
    // Round-trip: the 2 spare bits of the last character must be zero, so one key has one spelling.
    if (key.length === KEY_BYTES && key.toString('base64url') === url) return key;
  }
  throw new Error(`${name}: expected 32 bytes as 64 hex digits or base64`);
}

/** Short public id of a key (a truncated hash, not the key), stored with each ciphertext. */
function keyIdOf(key: Buffer): string {
  return createHash('sha256')
    .update('perp-exchange/api-key-master-key-id\0')
    .update(key)
    .digest('hex')
    .slice(0, 8);
}

/** Thrown for any ciphertext that does not decrypt: tampered, truncated, wrong key or wrong context. */
export class SecretDecryptionError extends Error {
  constructor(reason: string) {
    super(`API key secret cannot be decrypted: ${reason}`);
    this.name = 'SecretDecryptionError';
  }
}

function aad(keyId: string, context: string): Buffer {
  return Buffer.from(`${VERSION}:${keyId}:${context}`, 'utf8');
}

/**
 * The master keys that protect API-key secrets at rest: one current key that encrypts, and older
 * keys that still decrypt what they encrypted (rotation: add a new current key, keep the old one
 * as previous until every row has been re-encrypted). The keys sit in a private field, so logging
 * or serialising a keyring shows only key ids.
 */
export class MasterKeyring {
  readonly #keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== KEY_BYTES) throw new Error(`master key must be ${KEY_BYTES} bytes`);
      const id = keyIdOf(key);
      if (!this.#keys.has(id)) this.#keys.set(id, Buffer.from(key));
    }
    this.currentKeyId = keyIdOf(current);
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  /**
   * AES-256-GCM with a fresh 12-byte IV per secret. Output: `v1:<keyId>:<iv>:<ciphertext>:<tag>`
   * (base64url parts). The version, key id and `context` (pass the key's api_key or row id, so a
   * ciphertext copied onto another row does not decrypt there) are authenticated as AAD.
   */
  encrypt(plaintext: string, context = ''): string {
    const keyId = this.currentKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(keyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(keyId, context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
    return [VERSION, keyId, ...parts].join(':');
  }

  /** Reverses {@link encrypt} with whichever key the ciphertext names. */
  decrypt(blob: string, context = ''): string {
    const parts = blob.split(':');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretDecryptionError('unknown format');
    const [, keyId, ivText, ctText, tagText] = parts as [string, string, string, string, string];
    const key = this.#keys.get(keyId);
    if (!key) throw new SecretDecryptionError(`no master key with id ${keyId}`);
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretDecryptionError('unknown format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(keyId, context));
      decipher.setAuthTag(tag);
      const plaintext = Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]);
      return plaintext.toString('utf8');
    } catch {
      throw new SecretDecryptionError('authentication failed');
    }
  }

  /** Whether a stored ciphertext was made with an older key and should be re-encrypted. */
  needsReencryption(blob: string): boolean {
    return blob.split(':')[1] !== this.currentKeyId;
  }
}

/** {@link MasterKeyring.encrypt}. */
export function encryptSecret(plaintext: string, keyring: MasterKeyring, context = ''): string {
  return keyring.encrypt(plaintext, context);
}

/** {@link MasterKeyring.decrypt}; throws {@link SecretDecryptionError}. */
export function decryptSecret(blob: string, keyring: MasterKeyring, context = ''): string {
  return keyring.decrypt(blob, context);
}
