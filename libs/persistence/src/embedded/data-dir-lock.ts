import { open, readFile, rm } from 'node:fs/promises';

const heldHere = new Set<string>();

export interface DataDirLock {
  release: () => Promise<void>;
}

/**
 * An exclusive lock on an embedded database directory: a file holding the owner's pid, created
 * with O_EXCL. PGlite has no lock of its own, and two processes on one directory corrupt it. A lock
 * whose process is gone (killed) is taken over; a pid equal to ours that this process does not hold
 * is also stale (a container restarted with the same pid).
 */
export async function lockDataDir(lockPath: string): Promise<DataDirLock> {
  if (heldHere.has(lockPath))
    throw new Error(`${lockPath}: the embedded database is already open in this process`);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const file = await open(lockPath, 'wx', 0o600);
      try {
        await file.writeFile(`${process.pid}\n`);
      } finally {
        await file.close();
      }
      heldHere.add(lockPath);
      return {
        release: async () => {
          heldHere.delete(lockPath);
          await rm(lockPath, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid))
        throw new Error(`${lockPath}: the embedded database is in use by process ${pid}`, { cause: e });
      await rm(lockPath, { force: true });
    }
  }
  throw new Error(`${lockPath}: could not take the lock`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
