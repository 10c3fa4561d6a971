import { IncomeEntity } from '../entities';
import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { randomBytes } from 'node:crypto';
import { SNAPSHOT_GZIP_FROM_BYTES, ShardSnapshotRepository } from './shard-snapshot.repository';
import { ProcessedOffsetRepository } from './processed-offset.repository';

describe('exactly-once state: offsets and snapshots (real Postgres)', () => {
  let db: TestDatabase;
  let offsets: ProcessedOffsetRepository;
  let snapshots: ShardSnapshotRepository;

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 6 });
    offsets = new ProcessedOffsetRepository(db.dataSource.manager);
    snapshots = new ShardSnapshotRepository(db.dataSource.manager);
  });
  afterAll(() => db?.close());

  describe('processed offsets', () => {
    it('advances the high-water mark forward only, past 2^53 exactly', async () => {
      const mark = { consumer: 'risk', topic: 'engine.events', partition: 3 };
      expect(await offsets.get('risk', 'engine.events', 3)).toBeUndefined();
      expect(await offsets.advance({ ...mark, offset: '9' })).toBe(true);
      expect(await offsets.advance({ ...mark, offset: '10' })).toBe(true);
      expect(await offsets.advance({ ...mark, offset: '2' })).toBe(false);
      expect(await offsets.advance({ ...mark, offset: '10' })).toBe(false);
      expect(await offsets.get('risk', 'engine.events', 3)).toBe('10');
      expect(await offsets.advance({ ...mark, offset: '9007199254740993' })).toBe(true);
      expect(await offsets.advance({ ...mark, offset: '9007199254740992' })).toBe(false);
      expect(await offsets.get('risk', 'engine.events', 3)).toBe('9007199254740993');
      await offsets.advance({ ...mark, partition: 0, offset: '1' });
      expect((await offsets.listByConsumer('risk')).map((r) => [r.partition, r.offset])).toEqual([
        [0, '1'],
        [3, '9007199254740993'],
      ]);
      await expect(offsets.advance({ ...mark, offset: '1.5' })).rejects.toThrow('not a log offset');
    });

    it('applies an input once: a replay is skipped, and the write and the mark commit together', async () => {
      const mark = { consumer: 'income-projection', topic: 'account.events', partition: 1 };
      const write = (id: string) => async (m: typeof db.dataSource.manager) => {
        await m.insert(IncomeEntity, {
          id,
          userId: '00000000-0000-4000-8000-000000000001',
          incomeType: 'COMMISSION',
          income: '-0.01',
          time: 1,
        });
        return id;
      };
      const id1 = '00000000-0000-4000-8000-0000000000f1';
      expect(await offsets.applyOnce({ ...mark, offset: '5' }, write(id1))).toEqual({
        applied: true,
        result: id1,
      });
      expect(await offsets.applyOnce({ ...mark, offset: '5' }, write(id1))).toEqual({
        applied: false,
        highWaterMark: '5',
      });
      // A failing apply leaves neither its writes nor the mark behind.
      const id2 = '00000000-0000-4000-8000-0000000000f2';
      await expect(
        offsets.applyOnce({ ...mark, offset: '6' }, async (m) => {
          await write(id2)(m);
          throw new Error('projection bug');
        }),
      ).rejects.toThrow('projection bug');
      expect(await offsets.get(mark.consumer, mark.topic, mark.partition)).toBe('5');
      expect(await db.dataSource.getRepository(IncomeEntity).findOneBy({ id: id2 })).toBeNull();
    });

    it('lets only one of two racing consumers apply the same input', async () => {
      const mark = { consumer: 'racer', topic: 't', partition: 0, offset: '1' };
      let runs = 0;
      const apply = async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 20));
      };
      const results = await Promise.all([offsets.applyOnce(mark, apply), offsets.applyOnce(mark, apply)]);
      expect(results.map((r) => r.applied).sort()).toEqual([false, true]);
      expect(runs).toBe(1);
    });
  });

  describe('engine snapshots', () => {
    const state = (s: string) => Buffer.from(s, 'utf8');

    it('returns the snapshot at the numerically highest offset', async () => {
      await snapshots.save({ topic: 'engine.commands', partition: 2, offset: '9', state: state('nine') });
      await snapshots.save({
        topic: 'engine.commands',
        partition: 2,
        offset: '10',
        state: state('ten'),
        version: 2,
      });
      await snapshots.save({ topic: 'engine.commands', partition: 3, offset: '99', state: state('other') });
      const latest = await snapshots.latest('engine.commands', 2);
      expect(latest).toMatchObject({ offset: '10', version: 2 });
      expect(latest?.state.toString('utf8')).toBe('ten');
      expect(await snapshots.latest('engine.commands', 7)).toBeUndefined();
    });

    it('stores binary state byte for byte and replaces a snapshot at the same offset', async () => {
      const bytes = Buffer.from([0, 255, 1, 254, 0, 0, 128]);
      await snapshots.save({ topic: 'bin', partition: 0, offset: '1', state: state('old') });
      await snapshots.save({ topic: 'bin', partition: 0, offset: '1', state: bytes });
      expect((await snapshots.latest('bin', 0))?.state.equals(bytes)).toBe(true);
    });

    it('saves the snapshot and its input marks atomically', async () => {
      const marks = [
        { consumer: 'engine-0', topic: 'engine.commands', partition: 5, offset: '41' },
        { consumer: 'engine-0', topic: 'admin.commands', partition: 0, offset: '7' },
      ];
      await snapshots.save(
        { topic: 'engine.commands', partition: 5, offset: '41', state: state('s41') },
        marks,
      );
      expect(await offsets.get('engine-0', 'engine.commands', 5)).toBe('41');
      expect(await offsets.get('engine-0', 'admin.commands', 0)).toBe('7');

      await expect(
        snapshots.save({ topic: 'engine.commands', partition: 5, offset: '50', state: state('s50') }, [
          { ...marks[0], offset: '50' },
          { ...marks[1], offset: 'bad' },
        ]),
      ).rejects.toThrow('not a log offset');
      expect((await snapshots.latest('engine.commands', 5))?.offset).toBe('41');
      expect(await offsets.get('engine-0', 'engine.commands', 5)).toBe('41');
    });

    it('stores a large state gzipped and reads it back byte for byte; a small one as given', async () => {
      const stored = async (topic: string) =>
        (
          (await db.dataSource.query(
            `SELECT state_encoding AS encoding, octet_length(state) AS bytes FROM engine_snapshots WHERE topic = $1`,
            [topic],
          )) as { encoding: string; bytes: number }[]
        )[0];
      // A risk partition's state: mostly JSON of recently closed orders.
      const record = (i: number) =>
        `{"orderId":"00000000-0000-4000-8000-${String(i).padStart(12, '0')}","status":"FILLED","price":"65000.0"}`;
      const json = state(`{"v":5,"closed":[${Array.from({ length: 2000 }, (_, i) => record(i)).join(',')}]}`);
      await snapshots.save({ topic: 'big', partition: 0, offset: '7', state: json });
      expect(await stored('big')).toEqual({ encoding: 'gzip', bytes: expect.any(Number) });
      expect((await stored('big'))!.bytes).toBeLessThan(json.length / 5);
      expect((await snapshots.latest('big', 0))?.state.equals(json)).toBe(true);
      // Incompressible bytes go through the same way; below the threshold nothing is encoded.
      const noise = randomBytes(SNAPSHOT_GZIP_FROM_BYTES * 3);
      await snapshots.save({ topic: 'noise', partition: 0, offset: '1', state: noise });
      expect((await snapshots.latest('noise', 0))?.state.equals(noise)).toBe(true);
      const small = state('x'.repeat(SNAPSHOT_GZIP_FROM_BYTES - 1));
      await snapshots.save({ topic: 'small', partition: 0, offset: '1', state: small });
      expect(await stored('small')).toEqual({ encoding: 'identity', bytes: small.length });
      expect((await snapshots.latest('small', 0))?.state.equals(small)).toBe(true);
      // Replacing a gzipped snapshot at the same offset with a small one stores it as given.
      await snapshots.save({ topic: 'big', partition: 0, offset: '7', state: state('now small') });
      expect(await stored('big')).toEqual({ encoding: 'identity', bytes: 9 });
      expect((await snapshots.latest('big', 0))?.state.toString('utf8')).toBe('now small');
    });

    it('prunes all but the newest snapshots of a partition', async () => {
      for (const offset of ['1', '2', '3', '10', '11'])
        await snapshots.save({ topic: 'prune', partition: 0, offset, state: state(offset) });
      await snapshots.save({ topic: 'prune', partition: 1, offset: '1', state: state('keep') });
      expect(await snapshots.prune('prune', 0, 2)).toBe(3);
      expect(await snapshots.prune('prune', 0, 2)).toBe(0);
      expect((await snapshots.latest('prune', 0))?.offset).toBe('11');
      expect((await snapshots.latest('prune', 1))?.offset).toBe('1');
      const left: { offset: string }[] = await db.dataSource.query(
        `SELECT "offset"::text AS "offset" FROM engine_snapshots WHERE topic = 'prune' ORDER BY "offset"`,
      );
      expect(left.map((r) => r.offset)).toEqual(['1', '10', '11']);
    });
  });
});
