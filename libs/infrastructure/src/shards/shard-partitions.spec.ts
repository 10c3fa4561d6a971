import { afterBatch, type BusMessage, MemoryBus, silentLogger, type Subscription } from '@perp/bus';
import type { ShardSnapshotRepository } from '@perp/persistence';
import { ShardPartition, ShardPartitions, snapshotPolicyFromEnv } from './shard-partitions';

/** A shard state that counts the inputs it applied. */
class Counter extends ShardPartition {
  applied: number[] = [];
  serialize(): Buffer {
    return Buffer.from(JSON.stringify(this.applied));
  }
}

const TOPIC = 'shard-inputs';

describe('ShardPartitions.reload', () => {
  it('after a failed publish the partition restarts from its snapshot and replays: nothing applied twice, nothing lost', async () => {
    const bus = new MemoryBus({
      topics: { [TOPIC]: 1 },
      logger: silentLogger,
      retry: { initialMs: 5, maxMs: 5 },
    });
    await bus.connect();
    const partitions = new ShardPartitions<Counter>(TOPIC, 1, {
      empty: (p) => new Counter(p),
      restore: () => {
        throw new Error('no snapshots in this test');
      },
    });
    const published: number[] = [];
    let failOnce = true;
    let publishedBeforeFailure: number[] = [];
    const sub = await bus.subscribe({
      groupId: 'shard',
      topics: [TOPIC],
      maxBatch: 2,
      onAssigned: (tps, s) => partitions.assigned(tps, s),
      batchHandler: async (messages: readonly BusMessage[]) => {
        const p = partitions.getOrCreate(messages[0]!.partition);
        await p.run(async () => {
          const outputs: number[] = [];
          for (const m of messages) {
            const offset = BigInt(m.offset);
            if (offset <= p.lastOffset) continue;
            p.applied.push(Number(m.offset));
            p.lastOffset = offset;
            outputs.push(Number(m.offset));
          }
          if (outputs.includes(3) && failOnce) {
            failOnce = false;
            publishedBeforeFailure = [...published];
            await partitions.reload(p.partition);
            throw new Error('the log refused the turn');
          }
          published.push(...outputs);
        });
        await sub.commit(afterBatch(messages));
      },
    });
    for (let i = 0; i < 6; i++) await bus.publish(TOPIC, 'k', { i });
    const deadline = Date.now() + 5000;
    while ((partitions.get(0)?.applied.length ?? 0) < 6 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    // The reloaded partition (no snapshot: empty) replayed from the start of the log.
    expect(partitions.get(0)?.applied).toEqual([0, 1, 2, 3, 4, 5]);
    // Outputs of the turns before the failure come again (same inputs, same ids downstream); the
    // failed turn's outputs come once, after the replay.
    expect(publishedBeforeFailure.length).toBeGreaterThan(0);
    expect(publishedBeforeFailure).toEqual([...Array(publishedBeforeFailure.length).keys()]);
    expect(publishedBeforeFailure).not.toContain(3);
    expect(published).toEqual([...publishedBeforeFailure, 0, 1, 2, 3, 4, 5]);
    partitions.stop();
    await bus.close();
  });
});

describe('ShardPartitions.getOrCreate after a revocation', () => {
  it('a turn queued before its partition was revoked finds no state: it never starts the partition afresh from empty', async () => {
    const partitions = new ShardPartitions<Counter>(TOPIC, 1, {
      empty: (p) => new Counter(p),
      restore: () => {
        throw new Error('no snapshots in this test');
      },
    });
    const seeks: string[] = [];
    const sub = {
      seek: ({ offset }: { offset: string }) => void seeks.push(offset),
      committedAtAssignment: () => undefined,
    } as unknown as Subscription;
    await partitions.assigned([{ topic: TOPIC, partition: 0 }], sub);
    const owned = partitions.getOrCreate(0);
    owned.applied.push(0);
    owned.lastOffset = 0n;
    // A snapshot in progress holds the partition's queue; a turn waits behind it, and looks its
    // state up when it runs (as the engine's turn does for each input).
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const saving = owned.run(() => gate);
    const turn = owned.run(async () => {
      const p = partitions.getOrCreate(0);
      p.applied.push(1);
      p.lastOffset = 1n;
    });
    // The rebalance revokes the partition meanwhile; its final snapshot waits for the turn.
    const revoking = partitions.revoked([{ topic: TOPIC, partition: 0 }]);
    release();
    await saving;
    await expect(turn).rejects.toThrow(/partition 0 of shard-inputs is not owned/);
    await revoking;
    // Before the fix the turn applied input 1 to a new empty state (its outputs contradicting the
    // new owner's), which stayed in the shard and was snapshotted as partition 0 at offset 1.
    expect(partitions.owned()).toEqual([]);
    expect(owned.applied).toEqual([0]);
    partitions.stop();
  });
});

describe('ShardPartitions snapshots', () => {
  /** A snapshot store whose writes finish when the test says, or fail. */
  function heldStore() {
    const writes: { offset: string; state: string; finish: (e?: Error) => void }[] = [];
    const stored: string[] = [];
    const repo = {
      save: (s: { offset: string; state: Buffer }) =>
        new Promise<void>((resolve, reject) =>
          writes.push({
            offset: s.offset,
            state: s.state.toString(),
            finish: (e) => {
              if (e) return reject(e);
              stored.push(s.offset);
              resolve();
            },
          }),
        ),
      prune: () => Promise.resolve(0),
    } as unknown as ShardSnapshotRepository;
    return { repo, writes, stored };
  }

  const turn = (partitions: ShardPartitions<Counter>, p: Counter, offsets: number[]) =>
    p.run(async () => {
      for (const o of offsets) {
        p.applied.push(o);
        p.lastOffset = BigInt(o);
      }
      await partitions.appliedTurn(p, offsets.length);
    });

  /** Partitions of counters snapshotted every 2 inputs, at least `minIntervalMs` apart. */
  const counted = (repo: ShardSnapshotRepository, minIntervalMs: number) =>
    new ShardPartitions<Counter>(
      TOPIC,
      1,
      { empty: (p) => new Counter(p), restore: () => new Counter(0) },
      repo,
      { snapshotEvery: 2, snapshotIntervalMs: 60_000, snapshotMinIntervalMs: minIntervalMs },
    );

  it('are taken every N inputs and written beside the turns, in order, the newest waiting while one is written', async () => {
    const { repo, writes, stored } = heldStore();
    const partitions = counted(repo, 0);
    const p = partitions.getOrCreate(0);
    await turn(partitions, p, [0, 1]);
    // The state at offset 1 is taken at the end of the turn; its write is still on its way ...
    expect(writes.map((w) => [w.offset, w.state])).toEqual([['1', '[0,1]']]);
    // ... and the next turns run meanwhile. The snapshots due meanwhile are taken; the newest waits.
    await turn(partitions, p, [2, 3]);
    await turn(partitions, p, [4, 5]);
    await turn(partitions, p, [6]);
    expect(writes).toHaveLength(1);
    writes[0]!.finish();
    while (writes.length < 2) await new Promise((r) => setImmediate(r));
    expect(writes.map((w) => [w.offset, w.state])).toEqual([
      ['1', '[0,1]'],
      ['5', '[0,1,2,3,4,5]'],
    ]);
    // A failed write leaves the state due again: the final save (revocation, shutdown) takes it.
    writes[1]!.finish(new Error('database away'));
    await p.storing;
    expect(p.storing).toBeUndefined();
    const final = partitions.saveAll();
    while (writes.length < 3) await new Promise((r) => setImmediate(r));
    expect(writes[2]!.offset).toBe('6');
    writes[2]!.finish();
    await final;
    expect(stored).toEqual(['1', '6']);
    partitions.stop();
  });

  it('a busy partition is snapshotted every N inputs but not sooner than the minimum interval after the last', async () => {
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const { repo, writes } = heldStore();
      const partitions = counted(repo, 1000);
      const p = partitions.getOrCreate(0);
      // Two inputs are due by count, but the partition began (its last snapshot time) just now.
      await turn(partitions, p, [0, 1]);
      expect(writes).toHaveLength(0);
      now += 1000;
      await turn(partitions, p, [2]);
      expect(writes.map((w) => [w.offset, w.state])).toEqual([['2', '[0,1,2]']]);
      writes[0]!.finish();
      await p.storing;
      // Many inputs within the next second: no snapshot until the second has passed.
      now += 999;
      await turn(partitions, p, [3, 4, 5, 6, 7]);
      expect(writes).toHaveLength(1);
      now += 1;
      await turn(partitions, p, [8]);
      expect(writes.map((w) => w.offset)).toEqual(['2', '8']);
      writes[1]!.finish();
      await p.storing;
      // Under the count, the interval alone takes none.
      now += 5000;
      await turn(partitions, p, [9]);
      expect(writes).toHaveLength(2);
      partitions.stop();
    } finally {
      clock.mockRestore();
    }
  });
});

describe('snapshotPolicyFromEnv', () => {
  it("reads a prefix's settings; 0 is a minimum interval, not a count or an interval", () => {
    expect(
      snapshotPolicyFromEnv('RISK', {
        RISK_SNAPSHOT_EVERY: '5',
        RISK_SNAPSHOT_INTERVAL_MS: '2000',
        RISK_SNAPSHOT_MIN_INTERVAL_MS: '0',
        RISK_REPLAY_REPUBLISH: '1',
      }),
    ).toEqual({
      snapshotEvery: 5,
      snapshotIntervalMs: 2000,
      snapshotMinIntervalMs: 0,
      republishOnReplay: true,
    });
    expect(
      snapshotPolicyFromEnv('ENGINE', { ENGINE_SNAPSHOT_MIN_INTERVAL_MS: '250' }).snapshotMinIntervalMs,
    ).toBe(250);
    expect(
      snapshotPolicyFromEnv('ENGINE', { ENGINE_REPLAY_REPUBLISH: '0' }).republishOnReplay,
    ).toBeUndefined();
    expect(snapshotPolicyFromEnv('ENGINE', {})).toEqual({});
  });

  it('throws the configuration error naming a bad value instead of falling back to the default', () => {
    for (const bad of ['', ' ', '-1', '1.5', 'soon'])
      expect(() => snapshotPolicyFromEnv('ENGINE', { ENGINE_SNAPSHOT_MIN_INTERVAL_MS: bad })).toThrow(
        'invalid configuration:\n  ENGINE_SNAPSHOT_MIN_INTERVAL_MS: ',
      );
    expect(() =>
      snapshotPolicyFromEnv('RISK', {
        RISK_SNAPSHOT_EVERY: '0',
        RISK_SNAPSHOT_INTERVAL_MS: '0',
        RISK_REPLAY_REPUBLISH: 'true',
      }),
    ).toThrow(/RISK_SNAPSHOT_EVERY: [\s\S]*RISK_SNAPSHOT_INTERVAL_MS: [\s\S]*RISK_REPLAY_REPUBLISH: /);
  });
});
