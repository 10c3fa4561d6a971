import { Logger } from '@nestjs/common';
import { MemoryHotStore } from '@perp/cache';
import type { ApiKeyRepository } from '@perp/persistence';
import { LastUsedRecorder, lastUsedKey } from './last-used';

class FakeKeys {
  writes: [string, number][] = [];
  failNext = 0;
  readonly repo = {
    touchLastUsed: async (id: string, at: Date) => {
      if (this.failNext > 0) {
        this.failNext--;
        throw new Error('database down');
      }
      this.writes.push([id, at.getTime()]);
    },
  } as unknown as ApiKeyRepository;
}

describe('LastUsedRecorder', () => {
  let hot: MemoryHotStore;
  let db: FakeKeys;
  let recorder: LastUsedRecorder;

  beforeEach(() => {
    hot = new MemoryHotStore();
    db = new FakeKeys();
    // A flush interval that never fires during a test: flushes are called explicitly.
    recorder = new LastUsedRecorder(hot, db.repo, { lastUsedFlushMs: 3_600_000 });
    recorder.onModuleInit();
  });

  afterEach(async () => {
    recorder.onModuleDestroy();
    await hot.close();
  });

  it('writes nothing per request, then the latest use of each key once per flush', async () => {
    for (let t = 1000; t <= 1010; t++) recorder.record('k1', t);
    recorder.record('k2', 2000);
    recorder.record('k2', 1500); // late arrival: older than what is known
    expect(db.writes).toEqual([]);
    await recorder.flush();
    expect(db.writes.sort()).toEqual([
      ['k1', 1010],
      ['k2', 2000],
    ]);
    await recorder.flush();
    expect(db.writes).toHaveLength(2);
  });

  it('keeps failed writes for the next flush', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    recorder.record('k1', 1000);
    db.failNext = 1;
    await recorder.flush();
    expect(db.writes).toEqual([]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('last_used_at of key k1 not written'));
    warn.mockRestore();
    recorder.record('k2', 3000);
    await recorder.flush();
    expect(db.writes.sort()).toEqual([
      ['k1', 1000],
      ['k2', 3000],
    ]);
  });

  it('flushes before the application shuts down', async () => {
    recorder.record('k1', 1234);
    await recorder.beforeApplicationShutdown();
    expect(db.writes).toEqual([['k1', 1234]]);
  });

  it('flushes on its timer', async () => {
    const timed = new LastUsedRecorder(hot, db.repo, { lastUsedFlushMs: 10 });
    timed.onModuleInit();
    timed.record('k9', 99);
    for (let i = 0; i < 100 && db.writes.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    timed.onModuleDestroy();
    expect(db.writes).toEqual([['k9', 99]]);
  });

  it("shows other replicas' uses through the hot store, refreshed at most once a second per key", async () => {
    const other = new LastUsedRecorder(hot, db.repo, { lastUsedFlushMs: 3_600_000 });
    other.record('k1', 10_000);
    other.record('k1', 10_500); // within the second: memory only
    await new Promise((r) => setImmediate(r));
    expect(await hot.get(lastUsedKey('k1'))).toBe('10000');
    expect(await recorder.recent(['k1', 'k2'])).toEqual(new Map([['k1', 10_000]]));
    expect(await other.recent(['k1'])).toEqual(new Map([['k1', 10_500]]));
    other.record('k1', 11_000);
    await new Promise((r) => setImmediate(r));
    expect(await recorder.recent(['k1'])).toEqual(new Map([['k1', 11_000]]));
  });

  it('forgets a deleted key', async () => {
    recorder.record('k1', 5000);
    await new Promise((r) => setImmediate(r));
    await recorder.forget('k1');
    expect(await recorder.recent(['k1'])).toEqual(new Map());
    await recorder.flush();
    expect(db.writes).toEqual([]);
  });
});
