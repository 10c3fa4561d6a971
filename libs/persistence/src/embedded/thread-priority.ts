import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far below its process the embedded database's thread is scheduled (nice, 0 to 19). */
export const DATABASE_THREAD_NICENESS = 10;

/** The calling thread's OS id on Linux (`/proc/thread-self` is `<pid>/task/<tid>`); undefined elsewhere. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lowers the calling thread's scheduling priority by `by` (Linux keeps a nice value per thread, and
 * lowering one's own needs no privilege). Returns the thread's id when it did, undefined where it
 * cannot (another OS, no /proc): the thread then runs at its process's priority, as before.
 */
export function lowerThreadPriority(by = DATABASE_THREAD_NICENESS): number | undefined {
  const tid = currentThreadId();
  if (tid === undefined) return undefined;
  try {
    setPriority(tid, Math.min(19, getPriority(tid) + by));
    return tid;
  } catch {
    return undefined;
  }
}
