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

/** Whether the line in `bytes[start, end)` is wanted (decoded and handed over). */
export type LineFilter = (bytes: Buffer, start: number, end: number) => boolean;

/** Lines that start with `prefix`'s bytes. */
export function startingWith(prefix: Buffer): LineFilter {
  return (bytes, start, end) =>
    end - start >= prefix.length &&
    bytes.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0;
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COMMA = 0x2c;

/**
 * The lines of message records of `topic`'s `partition` at offset `from` or later, told apart
 * without decoding them. A message record's line starts `["m",<topic as JSON>,<partition>,<offset>,`:
 * MemoryBus.publish and the segment heads write it with JSON.stringify, which puts no space between
 * the elements (and an offset, a safe integer, in plain digits).
 */
export function messagesOf(topic: string, partition: number, from: number): LineFilter {
  const prefix = Buffer.from(`["m",${JSON.stringify(topic)},${partition},`);
  const starts = startingWith(prefix);
  return (bytes, start, end) => {
    if (!starts(bytes, start, end)) return false;
    if (from === 0) return true;
    let offset = 0;
    for (let i = start + prefix.length; i < end; i++) {
      const b = bytes[i]!;
      if (b === COMMA) return offset >= from;
      // Not plain digits: the parse decides.
      if (b < DIGIT_0 || b > DIGIT_9) return true;
      offset = offset * 10 + (b - DIGIT_0);
    }
    return true;
  };
}

/**
 * Calls `onLine` with the text of each complete line of `fd` in `[from, end)`, its position and the
 * position after its newline, in order, until it returns false; reads `chunkSize` bytes at a time
 * (more for a longer line) into one buffer, the partial line moved to its front. Bytes after the
 * last newline are not a line. With `wanted`, the lines it refuses are passed over without being
 * decoded.
 */
export function eachLine(
  fd: number,
  from: number,
  end: number,
  chunkSize: number,
  onLine: (text: string, position: number, next: number) => boolean,
  wanted?: LineFilter,
): void {
  let buf = Buffer.allocUnsafe(chunkSize);
  let held = 0; // bytes of a partial line at the front of buf
  let pos = from; // file position of buf[0]
  while (pos + held < end) {
    if (held === buf.length) {
      const longer = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(longer, 0, 0, held);
      buf = longer;
    }
    const n = readSync(fd, buf, held, Math.min(buf.length - held, end - pos - held), pos + held);
    if (n === 0) return;
    const filled = held + n;
    let start = 0;
    // The held bytes have no newline: the search starts after them. Bytes past `filled` are stale.
    for (let nl = buf.indexOf(NEWLINE, held); nl >= 0 && nl < filled; nl = buf.indexOf(NEWLINE, start)) {
      if (
        (!wanted || wanted(buf, start, nl)) &&
        !onLine(buf.toString('utf8', start, nl), pos + start, pos + nl + 1)
      )
        return;
      start = nl + 1;
    }
    held = filled - start;
    if (held > 0 && start > 0) buf.copy(buf, 0, start, filled);
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
