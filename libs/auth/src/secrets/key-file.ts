import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const HEX_32_BYTES = /^[0-9a-f]{64}$/;

/**
 * Reads a 32-byte secret (64 hex digits) from `dir/name`, creating it with fresh random bytes and
 * mode 0600 the first time. Embedded mode keeps its master key and JWT secret this way so they
 * survive restarts without configuration. Creation is atomic (write a private temp file, then
 * hard-link it into place), so two processes starting together end up with the same secret.
 */
export async function loadOrCreateKeyFile(dir: string, name: string): Promise<Buffer> {
  const path = join(dir, name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    return await readKeyFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await unlink(temp);
  }
  return readKeyFile(path);
}

async function readKeyFile(path: string): Promise<Buffer> {
  const text = (await readFile(path, 'utf8')).trim();
  // The content is never echoed: it is a secret even when malformed.
  if (!HEX_32_BYTES.test(text)) throw new Error(`${path}: expected 64 lowercase hex digits`);
  // Tighten a file someone loosened; a key readable by others is a leaked key.
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  return Buffer.from(text, 'hex');
}
