import { Logger } from '@nestjs/common';
import type { Subscription, TopicPartition } from '@perp/bus';
import type { NewSnapshot, ShardSnapshotRepository } from '@perp/persistence';
import { loadShardSnapshotEnv, type ShardPrefix } from '@perp/runtime';

/**
 * One input partition a shard owns: the offset of the last input applied (and whose output is
 * published), what the latest snapshot holds, and a queue so handlers and snapshots never interleave.
 */
export abstract class ShardPartition {
  /** -1 for none. */
  lastOffset = -1n;
  savedOffset = -1n;
  /**
   * Inputs below this offset had their outputs published by an earlier owner (the group's commit
   * when this member gained the partition): a replay applies them to the state and publishes
   * nothing. -1 for none.
   */
  publishedBelow = -1n;
  sinceSnapshot = 0;
  lastSnapshotAt = Date.now();
  /** The snapshot writes to the database in progress, beside the partition's turns. */
  storing?: Promise<void>;
  /** The newest snapshot taken while another was being written: written next. */
  nextSnapshot?: NewSnapshot;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly partition: number) {}

  /** Runs `fn` after everything queued before it. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  abstract serialize(): Buffer;
}

export interface SnapshotPolicy {
  /** Snapshot a partition after this many inputs (default 1000). */
  snapshotEvery?: number;
  /**
   * ... or this long after the previous snapshot when it has unsaved inputs (default 10 s: a new
   * owner after a crash replays at most that much of the log).
   */
  snapshotIntervalMs?: number;
  /**
   * ... but not sooner than this after the previous one (default 1 s; 0 for none). A busy partition
   * reaches `snapshotEvery` many times a second, and each snapshot serialises the whole state and
   * writes it to the database: at 2,000 orders/s that was a tenth of the order path's CPU. A
   * replay is then at most this long's worth of inputs beyond `snapshotEvery`.
   */
  snapshotMinIntervalMs?: number;
  /** Snapshots kept per partition (default 3). */
  keepSnapshots?: number;
  /**
   * A replay publishes the outputs of every input again, also of those the group had committed
   * (default false: those are applied to the state only). For checking that replays are identical.
   */
  republishOnReplay?: boolean;
}

export interface ShardPartitionFactory<P extends ShardPartition> {
  empty(partition: number): P;
  /** A partition from a snapshot's state; throws on a state it cannot read. */
  restore(partition: number, state: Buffer): P;
  /**
   * Runs once a partition is restored from a snapshot, before its replay: the shard's projections
   * of the state (a hot store that lost them in a restart needs every account, not only those the
   * replay touches). `savedAt`: when the snapshot was stored (ms).
   */
  restored?(p: P, savedAt: number): Promise<void>;
}

/**
 * The partitions of `topic` a shard (engine, risk) owns and their snapshots: on assignment each is
 * restored from its latest snapshot and the subscription seeks past it (replay from there); on
 * revocation it is saved and dropped; while owned it is saved every N inputs or T ms.
 */
export class ShardPartitions<P extends ShardPartition> {
  private readonly logger: Logger;
  private readonly partitions = new Map<number, P>();
  private readonly snapshotEvery: number;
  private readonly snapshotIntervalMs: number;
  private readonly snapshotMinIntervalMs: number;
  private readonly keepSnapshots: number;
  private readonly republishOnReplay: boolean;
  private timer?: NodeJS.Timeout;
  private subscription?: Subscription;

  constructor(
    private readonly topic: string,
    private readonly version: number,
    private readonly factory: ShardPartitionFactory<P>,
    private readonly snapshots?: ShardSnapshotRepository,
    policy: SnapshotPolicy = {},
  ) {
    this.logger = new Logger(`${topic} partitions`);
    this.snapshotEvery = policy.snapshotEvery ?? 1000;
    this.snapshotIntervalMs = policy.snapshotIntervalMs ?? 10_000;
    this.snapshotMinIntervalMs = policy.snapshotMinIntervalMs ?? 1000;
    this.keepSnapshots = policy.keepSnapshots ?? 3;
    this.republishOnReplay = policy.republishOnReplay ?? false;
    if (this.snapshots && this.snapshotIntervalMs > 0) {
      this.timer = setInterval(() => void this.saveDue(), Math.min(this.snapshotIntervalMs, 1000));
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  owned(): number[] {
    return [...this.partitions.keys()].sort((a, b) => a - b);
  }

  values(): IterableIterator<P> {
    return this.partitions.values();
  }

  get(partition: number): P | undefined {
    return this.partitions.get(partition);
  }

  /**
   * The partition's state; empty when the subscription never announced it (no onAssigned wiring).
   * With the wiring, a partition not here was revoked: a turn queued before that throws rather
   * than apply its inputs to an empty state, whose outputs would contradict the new owner's.
   */
  getOrCreate(partition: number): P {
    let p = this.partitions.get(partition);
    if (!p) {
      if (this.subscription)
        throw new Error(`partition ${partition} of ${this.topic} is not owned by this member`);
      p = this.factory.empty(partition);
      this.partitions.set(partition, p);
    }
    return p;
  }

  /** onAssigned: restore each partition from its latest snapshot and seek past it. */
  async assigned(partitions: TopicPartition[], sub: Subscription): Promise<void> {
    this.subscription = sub;
    for (const tp of partitions) {
      if (tp.topic !== this.topic) continue;
      await this.load(tp.partition, sub);
    }
  }

  /**
   * A turn's outputs could not be published after its inputs were applied (the log refused them):
   * the partition's state is ahead of its log. Reload it from its latest snapshot and replay from
   * there; the replay re-emits the lost outputs under the same ids, and consumers drop the ones
   * they already had. Call inside `p.run`, then throw, so the bus does not advance.
   */
  async reload(partition: number): Promise<void> {
    if (!this.subscription || !this.partitions.has(partition)) return;
    this.logger.warn(`partition ${partition}: reloading from its snapshot after a failed publish`);
    await this.load(partition, this.subscription);
  }

  private async load(partition: number, sub: Subscription): Promise<void> {
    const snap = await this.snapshots?.latest(this.topic, partition);
    let state: P;
    if (snap) {
      try {
        state = this.factory.restore(partition, snap.state);
      } catch (e) {
        this.logger.error(`partition ${partition}: bad snapshot at ${snap.offset}: ${(e as Error).message}`);
        throw e;
      }
      state.lastOffset = state.savedOffset = BigInt(snap.offset);
      // Projections only: a failure (the hot store unreachable) must not keep the partition from
      // its inputs; the next turns write what they touch.
      try {
        await this.factory.restored?.(state, snap.createdAt.getTime());
      } catch (e) {
        this.logger.warn(`partition ${partition}: projections after restore: ${(e as Error).message}`);
      }
    } else state = this.factory.empty(partition);
    const committed = this.republishOnReplay
      ? undefined
      : sub.committedAtAssignment({ topic: this.topic, partition });
    if (committed !== undefined) state.publishedBelow = BigInt(committed);
    this.partitions.set(partition, state);
    await sub.seek({ topic: this.topic, partition, offset: (state.lastOffset + 1n).toString() });
    const quiet = state.publishedBelow > state.lastOffset + 1n ? `; state only up to ${committed}` : '';
    if (snap || quiet)
      this.logger.log(`partition ${partition}: restored at ${snap?.offset ?? 'none'}${quiet}`);
  }

  /** onRevoked: save what is unsaved (still a member on close) and drop the partitions. */
  async revoked(partitions: TopicPartition[]): Promise<void> {
    for (const tp of partitions) {
      const p = this.partitions.get(tp.partition);
      if (!p || tp.topic !== this.topic) continue;
      this.partitions.delete(tp.partition);
      await p.run(() => this.save(p)).catch((e: Error) => this.logger.warn(`final snapshot: ${e.message}`));
    }
  }

  /** Call inside `p.run` once the input at `offset` is applied and its output published. */
  async applied(p: P, offset: bigint): Promise<void> {
    p.lastOffset = offset;
    p.sinceSnapshot++;
    if (this.snapshotDue(p)) this.saveBeside(p);
  }

  /** Whether the input at `offset` of `p` is a replay of one whose outputs are on the log already. */
  replayed(p: P, offset: bigint): boolean {
    return offset < p.publishedBelow;
  }

  /** Call inside `p.run` once a turn's `count` inputs are applied (lastOffset set) and published. */
  async appliedTurn(p: P, count: number): Promise<void> {
    p.sinceSnapshot += count;
    if (this.snapshotDue(p)) this.saveBeside(p);
  }

  /** `snapshotEvery` inputs since the last snapshot, and at least `snapshotMinIntervalMs` after it. */
  private snapshotDue(p: P): boolean {
    return (
      this.snapshots !== undefined &&
      p.sinceSnapshot >= this.snapshotEvery &&
      (this.snapshotMinIntervalMs === 0 || Date.now() - p.lastSnapshotAt >= this.snapshotMinIntervalMs)
    );
  }

  /** Stores every owned partition now (tests, shutdown). */
  async saveAll(): Promise<void> {
    for (const p of this.partitions.values()) await p.run(() => this.save(p));
  }

  private async saveDue(): Promise<void> {
    const now = Date.now();
    for (const p of this.partitions.values())
      if (p.sinceSnapshot > 0 && now - p.lastSnapshotAt >= this.snapshotIntervalMs)
        await p
          .run(async () => this.saveBeside(p))
          .catch((e: Error) => this.logger.warn(`snapshot: ${e.message}`));
  }

  /**
   * Takes the state now (inside `p.run`: between turns) and writes it beside the partition's next
   * turns, which do not wait for the database (a risk partition's state is half a megabyte of
   * JSON, and its write took 30 to 180 ms). Snapshots are still taken every `snapshotEvery`
   * inputs; their writes go one at a time, in order, and of those taken while one is written only
   * the newest waits. A snapshot whose write is lost (a crash, a failure) only means a longer
   * replay from the one before.
   */
  private saveBeside(p: P): void {
    const snapshot = this.capture(p);
    if (!snapshot) return;
    if (p.storing) p.nextSnapshot = snapshot;
    else p.storing = this.storeFrom(p, snapshot);
  }

  private async storeFrom(p: P, first: NewSnapshot): Promise<void> {
    let snapshot: NewSnapshot | undefined = first;
    while (snapshot) {
      try {
        await this.store(snapshot);
      } catch (e) {
        this.logger.warn(
          `snapshot of partition ${p.partition} at ${snapshot.offset}: ${(e as Error).message}`,
        );
        // Due again at the interval's next check.
        p.savedOffset = -1n;
        p.sinceSnapshot = Math.max(p.sinceSnapshot, 1);
        p.lastSnapshotAt = 0;
      }
      snapshot = p.nextSnapshot;
      p.nextSnapshot = undefined;
    }
    p.storing = undefined;
  }

  /** Saves now and waits for the writes: revocation, shutdown, tests. */
  private async save(p: P): Promise<void> {
    this.saveBeside(p);
    await p.storing;
  }

  /** The partition's state as a snapshot to store, if it changed since the last one taken. */
  private capture(p: P): NewSnapshot | undefined {
    if (!this.snapshots || p.lastOffset < 0n || p.lastOffset === p.savedOffset) return undefined;
    const snapshot = {
      topic: this.topic,
      partition: p.partition,
      offset: p.lastOffset.toString(),
      state: p.serialize(),
      version: this.version,
    };
    p.savedOffset = p.lastOffset;
    p.sinceSnapshot = 0;
    p.lastSnapshotAt = Date.now();
    return snapshot;
  }

  private async store(snapshot: NewSnapshot): Promise<void> {
    await this.snapshots!.save(snapshot);
    await this.snapshots!.prune(this.topic, snapshot.partition, this.keepSnapshots);
  }
}

/**
 * The shard's snapshot policy from `<PREFIX>_SNAPSHOT_EVERY`, `_SNAPSHOT_INTERVAL_MS`,
 * `_SNAPSHOT_MIN_INTERVAL_MS` and `_REPLAY_REPUBLISH` (rules in @perp/runtime's envSchema); a bad
 * value throws the configuration error rather than falling back to a default.
 */
export function snapshotPolicyFromEnv(
  prefix: ShardPrefix,
  env: NodeJS.ProcessEnv = process.env,
): SnapshotPolicy {
  const e = loadShardSnapshotEnv(prefix, env);
  return {
    snapshotEvery: e.SNAPSHOT_EVERY,
    snapshotIntervalMs: e.SNAPSHOT_INTERVAL_MS,
    snapshotMinIntervalMs: e.SNAPSHOT_MIN_INTERVAL_MS,
    ...(e.REPLAY_REPUBLISH === '1' ? { republishOnReplay: true } : {}),
  };
}
