import { eventually } from '@perp/testing';
import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import type { BusLogger, BusMessage } from '../bus';
import { journalDirs, readAll } from './__fixtures__/journal-dirs';
import type { MemoryBus } from './memory-bus';
import { Group, TopicLog, tpKey } from './memory-group';
import { SegmentHeads } from './segment-heads';

/** Warnings kept: a reader sent past deleted offsets is told so. */
function recordingLogger(): BusLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, log() {}, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
}

describe('MemoryBus journal segments and retention', () => {
  const dirs = journalDirs('bus-segments-');
  const RETENTION = 60_000;
  const open = (logger: BusLogger = recordingLogger()) =>
    dirs.open({
      topics: { t: 2, markets: 1 },
      keepWhole: ['markets'],
      logger,
      retain: 5,
      journal: { dir: dirs.dir, fsync: 'never', segmentBytes: 2_000, retentionMs: RETENTION },
    });
  const segments = () =>
    readdirSync(dirs.dir)
      .filter((f) => f.startsWith('bus.journal'))
      .sort();
  /** Makes every segment but the newest look written an hour ago. */
  const ageOldSegments = () => {
    const past = new Date(Date.now() - 3_600_000);
    for (const f of segments().slice(0, -1)) utimesSync(join(dirs.dir, f), past, past);
  };
  // Sequential publishes: one journal batch each, so segments roll at their size.
  const publishMany = async (bus: MemoryBus, from: number, to: number) => {
    for (let i = from; i < to; i++) await bus.publish('t', 'a', { i });
  };
  const offsets = (got: BusMessage[]) => got.map((m) => Number(m.offset));
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

  it('rolls segments by size; a reader far behind reads across them in order, also after a restart', async () => {
    let bus = await open();
    await publishMany(bus, 0, 200);
    expect(segments().length).toBeGreaterThan(3);
    const p = bus.partitionFor('t', 'a');
    expect(offsets(await readAll(bus, 'late', 't', 200))).toEqual(range(0, 200));
    await bus.close();
    bus = await open();
    expect(bus.partitionLog('t', p).visibleEnd).toBe(200);
    const got = await readAll(bus, 'later', 't', 200);
    expect(offsets(got)).toEqual(range(0, 200));
    expect(got.map((m) => (m.value as { i: number }).i)).toEqual(range(0, 200));
  });

  it('on restart, segments past retention are deleted: offsets go on, commits and the kept-whole topic survive', async () => {
    let bus = await open();
    await bus.publish('markets', 'BTCUSDT', { i: 0 });
    await bus.publish('markets', 'ETHUSDT', { i: 1 });
    await publishMany(bus, 0, 150);
    const p = bus.partitionFor('t', 'a');
    // A group that read and committed up to 120.
    const sub = await bus.subscribe({ groupId: 'g', topics: ['t'], handler: () => undefined });
    await sub.commit([{ topic: 't', partition: p, offset: '120' }]);
    await sub.close();
    await publishMany(bus, 150, 200);
    await bus.close();
    const before = segments().length;
    ageOldSegments();

    bus = await open();
    expect(segments()).toHaveLength(1);
    expect(before).toBeGreaterThan(1);
    const log = bus.partitionLog('t', p);
    expect(log.start).toBeGreaterThan(150);
    expect(log.visibleEnd).toBe(200);
    // The next message takes the next offset, not one of the deleted ones.
    const next = await bus.publish('t', 'a', { i: 200 });
    expect(next.offset).toBe('200');
    // A new group starts at the oldest kept; the kept-whole topic is whole.
    expect(offsets(await readAll(bus, 'new', 't', 201 - log.start))).toEqual(range(log.start, 201));
    expect((await readAll(bus, 'm', 'markets', 2)).map((m) => m.key)).toEqual(['BTCUSDT', 'ETHUSDT']);
    // The committed group resumes where it was told to, and is told its offsets are gone.
    const logger = recordingLogger();
    await bus.close();
    bus = await open(logger);
    const got: BusMessage[] = [];
    const resumed = await bus.subscribe({ groupId: 'g', topics: ['t'], handler: (m) => void got.push(m) });
    await eventually(() => got.length >= 201 - log.start);
    await resumed.close();
    expect(offsets(got)).toEqual(range(log.start, 201));
    expect(logger.warnings).toEqual([
      `t/${p}: offset 120 was deleted by retention; reading from ${log.start}`,
    ]);
  });

  it('while running, a new segment deletes the expired ones; readers behind and new groups go on from the start', async () => {
    const logger = recordingLogger();
    const bus = await open(logger);
    await bus.publish('markets', 'BTCUSDT', { i: 0 });
    await publishMany(bus, 0, 100);
    const p = bus.partitionFor('t', 'a');
    const log = bus.partitionLog('t', p);
    const first = segments()[0];
    ageOldSegments();
    await publishMany(bus, 100, 130);
    expect(segments()).not.toContain(first);
    expect(log.start).toBeGreaterThan(0);
    expect(log.start).toBeLessThanOrEqual(100);
    // Offsets still in the journal but no longer in memory are read back from the kept segments.
    expect(log.base).toBeGreaterThan(log.start);
    expect(offsets(await readAll(bus, 'new', 't', 130 - log.start))).toEqual(range(log.start, 130));
    expect((await readAll(bus, 'm', 'markets', 1)).map((m) => m.key)).toEqual(['BTCUSDT']);
    // A member that seeks back to a deleted offset goes on from the start.
    const got: BusMessage[] = [];
    const sub = await bus.subscribe({
      groupId: 'seeker',
      topics: ['t'],
      handler: (m) => void got.push(m),
      onAssigned: (_, s) => s.seek({ topic: 't', partition: p, offset: '0' }),
    });
    await eventually(() => got.filter((m) => m.partition === p).length >= 130 - log.start);
    await sub.close();
    expect(offsets(got.filter((m) => m.partition === p))).toEqual(range(log.start, 130));
    expect(logger.warnings).toContain(`t/${p}: offset 0 was deleted by retention; reading from ${log.start}`);
  });
});

describe('SegmentHeads', () => {
  it("copies only commits already in the journal: a queued one must not land before its turn's outputs", () => {
    const topics = new Map([['t', new TopicLog('t', 1)]]);
    const group = new Group('g', undefined as never);
    group.committed.set(tpKey('t', 0), 7);
    group.journaled.set(tpKey('t', 0), 5);
    const heads = new SegmentHeads(topics, new Map([['g', group]]), {
      keepWhole: new Set(),
      reindex: () => undefined,
    });
    expect(heads.header(1000).map((l) => JSON.parse(l) as unknown)).toEqual([
      ['t', 't', 1],
      ['s', 't', 0, 0],
      ['c', 'g', 't', 0, 5],
    ]);
  });
});
