import { readFileSync, readSync, unlinkSync, writeFileSync } from 'node:fs';

const NEWLINE = 0x0a;

/** Takes the journal directory's lock file, or throws naming the live process that holds it. */
export function takeLock(lockPath: string, dir: string): void {
  try {
    writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const holder = Number(readFileSync(lockPath, 'utf8'));
  if (holder && holder !== process.pid && alive(holder)) {
    throw new Error(`bus journal ${dir} is in use by process ${holder}`);
  }
  writeFileSync(lockPath, String(process.pid));
}

export function releaseLock(lockPath: string): void {
  try {
    if (Number(readFileSync(lockPath, 'utf8')) === process.pid) unlinkSync(lockPath);
  } catch {
    /* already gone */
  }
}

/**
 * Calls `onLine` with the text of each complete line of `fd` in `[from, end)`, its position and the
 * position after its newline, in order, until it returns false; reads `chunkSize` bytes at a time.
 * Bytes after the last newline are not a line. With `prefix`, lines that do not start with those
 * bytes are passed over without being decoded.
 */
export function eachLine(
  fd: number,
  from: number,
  end: number,
  chunkSize: number,
  onLine: (text: string, position: number, next: number) => boolean,
  prefix?: Buffer,
): void {
  const chunk = Buffer.allocUnsafe(chunkSize);
  let carry: Buffer = Buffer.alloc(0);
  let pos = from; // file position of carry[0]
  while (pos + carry.length < end) {
    const at = pos + carry.length;
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, end - at), at);
    if (n === 0) return;
    const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
      const wanted =
        !prefix ||
        (nl - start >= prefix.length &&
          buf.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0);
      if (wanted && !onLine(buf.toString('utf8', start, nl), pos + start, pos + nl + 1)) return;
      start = nl + 1;
    }
    carry = Buffer.from(buf.subarray(start));
    pos += start;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
