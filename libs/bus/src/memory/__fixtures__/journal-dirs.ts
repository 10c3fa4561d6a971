import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@perp/testing';
import type { BusMessage } from '../../bus';
import { MemoryBus, type MemoryBusOptions } from '../memory-bus';

/**
 * For a describe block: a fresh journal directory per test, and `open` for memory buses that are
 * connected now and closed after the test (a failed expectation must not leave a bus running: its
 * cursors would keep jest alive).
 */
export function journalDirs(prefix: string) {
  let dir = '';
  const opened: MemoryBus[] = [];
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), prefix))));
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir(): string {
      return dir;
    },
    async open(options: MemoryBusOptions): Promise<MemoryBus> {
      const bus = new MemoryBus(options);
      await bus.connect();
      opened.push(bus);
      return bus;
    },
  };
}

/** The first `count` messages of `topic` a new group reads from the start, in batches of up to 7. */
export async function readAll<T = { i: number }>(
  bus: MemoryBus,
  groupId: string,
  topic: string,
  count: number,
): Promise<BusMessage<T>[]> {
  const got: BusMessage<T>[] = [];
  const sub = await bus.subscribe<T>({
    groupId,
    topics: [topic],
    start: 'earliest',
    batchHandler: (ms) => void got.push(...ms),
    maxBatch: 7,
  });
  await eventually(() => got.length >= count);
  await sub.close();
  return got;
}
