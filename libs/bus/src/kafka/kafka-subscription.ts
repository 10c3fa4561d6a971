// Why this module is long: one kafkajs member's lifecycle (join, rejoin, assignment and hand-over, seek epochs, batch delivery and retries) is one state machine over shared per-partition state; split, its invariants would be in several places.
import {
  type Admin,
  type Cluster,
  type Consumer,
  type EachBatchPayload,
  type EachMessagePayload,
  type IHeaders,
  type Kafka,
  PartitionAssigners,
} from 'kafkajs';
import {
  type BusHeaders,
  type BusLogger,
  type BusMessage,
  BusClosedError,
  checkHandlers,
  type PartitionsListener,
  type SubscribeOptions,
  type Subscription,
  type TopicPartition,
  type TopicPartitionOffset,
  offsetsOf,
} from '../bus';
import { errorText, retryDelay } from '../logger';
import type { KafkaBusOptions } from './kafka-bus';
import { leaveGroupFor, MemberLiveness } from './member-liveness';
import { stickyAssigner } from './sticky-assigner';

export const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

interface PartitionState {
  /** Next offset to deliver; undefined until the first delivery or seek. */
  position?: bigint;
  /** Bumped by every seek: a message fetched before it is stale. */
  epoch: number;
  /** The group's committed offset when this member gained the partition. */
  committed?: string;
  attempt: number;
}

/** One kafkajs consumer: a member of `groupId`. */
export class KafkaSubscription implements Subscription {
  readonly groupId: string;
  failed = false;
  onClose?: () => void;
  private consumer: Consumer;
  /** A replacement for a crashed member is joining (its own crash must not start another). */
  private rejoining = false;
  private readonly parts = new Map<string, PartitionState>();
  private readonly resumeTimers = new Map<string, NodeJS.Timeout>();
  private readonly maxBatch: number;
  private assigning: Promise<void> = Promise.resolve();
  private inflight: Promise<unknown> = Promise.resolve();
  private generations = 0;
  private latest?: Map<string, string>;
  private closed = false;
  private starting?: Promise<void>;
  private joined?: { resolve: () => void; reject: (e: Error) => void; done: boolean };
  /** The current consumer's kafkajs cluster (kafkajs hands it to partition assigners). */
  private cluster?: Cluster;
  private readonly liveness?: MemberLiveness;
  /** Positions waiting for the next commit request, by partition; `queued` settles with it. */
  private readonly toCommit = new Map<string, TopicPartitionOffset>();
  private queued?: Deferred;
  private committing?: Promise<void>;
  /** A `commit()` caller waits for what is queued: send it without pacing. */
  private commitAwaited = false;
  private lastCommitAt = 0;
  private commitTimer?: NodeJS.Timeout;

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly options: SubscribeOptions,
    private readonly config: KafkaBusOptions,
    private readonly logger: BusLogger,
  ) {
    this.groupId = options.groupId;
    this.maxBatch = checkHandlers(options);
    const watch = config.consumer?.liveness;
    if (watch && watch.periodMs > 0)
      this.liveness = new MemberLiveness(
        this.groupId,
        watch.presence,
        watch.periodMs,
        (m) => this.evict(m),
        logger,
      );
    this.consumer = this.newConsumer();
  }

  /** A member whose process died leaves the group now, not after its session timeout. */
  private evict(memberId: string): Promise<'evicted' | 'gone'> {
    if (!this.cluster) return Promise.reject(new Error('not joined yet'));
    return leaveGroupFor(this.cluster, this.groupId, memberId);
  }

  private newConsumer(): Consumer {
    const t = this.config.consumer ?? {};
    return this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: t.sessionTimeoutMs ?? 10_000,
      heartbeatInterval: t.heartbeatIntervalMs ?? 1_000,
      rebalanceTimeout: t.rebalanceTimeoutMs ?? 10_000,
      maxWaitTimeInMs: Math.max(t.maxWaitTimeMs ?? 100, this.options.minFetchWaitMs ?? 0),
      allowAutoTopicCreation: true,
      // Healthy members keep their partitions through a rebalance; round robin is the fallback a
      // group of older members agrees on.
      partitionAssigners: [
        (config) => {
          this.cluster = config.cluster;
          return stickyAssigner(() => this.owned(), t.leaderSyncDelayMs)(config);
        },
        PartitionAssigners.roundRobin,
      ],
    });
  }

  /** What this member owns now, by topic: its claim in the next JoinGroup. */
  private owned(): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const k of this.parts.keys()) {
      const { topic, partition } = toTp(k);
      (out[topic] ??= []).push(partition);
    }
    return out;
  }

  start(): Promise<void> {
    return (this.starting ??= this.join());
  }

  private async join(): Promise<void> {
    const topics = [...this.options.topics];
    const joined = new Promise<void>((resolve, reject) => (this.joined = { resolve, reject, done: false }));
    joined.catch(() => undefined); // close() may reject it before it is awaited
    const open = () => {
      if (this.closed) throw new BusClosedError();
    };
    const timeoutMs = this.config.consumer?.joinTimeoutMs ?? 60_000;
    const timer = setTimeout(
      () => this.settleJoin(new Error(`group ${this.groupId}: no assignment in ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      if (this.options.start === 'latest') {
        // "latest" is the end as of subscribe(): fetched before joining, so nothing published after slips by.
        this.latest = new Map();
        for (const topic of topics) {
          for (const o of await this.admin.fetchTopicOffsets(topic))
            this.latest.set(tpKey(topic, o.partition), o.high);
        }
      }
      open();
      await this.runConsumer(this.consumer, open);
      await joined;
    } finally {
      clearTimeout(timer);
    }
  }

  private async runConsumer(consumer: Consumer, open: () => void): Promise<void> {
    await consumer.connect();
    open();
    await consumer.subscribe({
      topics: [...this.options.topics],
      fromBeginning: this.options.start !== 'latest',
    });
    open();
    // Events of a consumer this subscription has replaced (see rejoin) are ignored.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      if (consumer !== this.consumer) return;
      this.liveness?.joined(payload.memberId);
      this.onJoin(payload.memberAssignment);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (consumer !== this.consumer) return;
      // Expected: kafkajs restarts on a retriable error (a rebalance, a coordinator moving); a
      // join that fails is retried by KafkaBus.subscribe; a member that dies later (the mock's
      // transient SyncGroup INVALID_REQUEST, which kafkajs does not retry) rejoins as a new one.
      const line = `group ${this.groupId} consumer crashed (restart: ${payload.restart}): ${errorText(payload.error)}`;
      const joining = this.joined !== undefined && !this.joined.done;
      this.logger.log(line);
      if (payload.restart || this.closed) return;
      if (joining) {
        this.failed = true;
        this.settleJoin(payload.error);
      } else if (!this.rejoining) void this.rejoin(consumer);
    });
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: this.config.consumer?.concurrency ?? 1,
      ...(this.options.batchHandler
        ? { eachBatch: (p: EachBatchPayload) => this.onBatch(p) }
        : { eachMessage: (p: EachMessagePayload) => this.onMessage(p) }),
    });
  }

  /**
   * A member kafkajs gave up on: its partitions are revoked here (onRevoked saves the shards'
   * state), then a new consumer joins the group and gets partitions as any new member would. A new
   * consumer that cannot join is replaced again, with backoff, until one does or the subscription
   * closes; meanwhile the bus reports itself not ready.
   */
  private async rejoin(dead: Consumer): Promise<void> {
    this.rejoining = true;
    try {
      await this.replace(dead);
    } finally {
      this.rejoining = false;
    }
  }

  private async replace(dead: Consumer): Promise<void> {
    await dead.disconnect().catch(() => undefined);
    this.assigning = this.assigning.then(() => this.applyAssignment(new Set(), false));
    await this.assigning;
    for (let attempt = 1; ; attempt++) {
      await new Promise((r) => setTimeout(r, retryDelay(attempt, { initialMs: 200, maxMs: 5_000 })));
      if (this.closed) return;
      const consumer = (this.consumer = this.newConsumer());
      try {
        await this.runConsumer(consumer, () => {
          if (this.closed) throw new BusClosedError();
        });
        this.failed = false;
        if (this.closed) return void (await consumer.disconnect().catch(() => undefined));
        this.logger.log(`group ${this.groupId}: rejoined with a new consumer`);
        return;
      } catch (e) {
        // Closed while this one joined: close() may have disconnected the consumer before it had connected.
        if (this.closed) return void (await consumer.disconnect().catch(() => undefined));
        this.failed = true;
        this.logger.warn(`group ${this.groupId}: rejoin failed (${errorText(e)}); trying again`);
        await consumer.disconnect().catch(() => undefined);
      }
    }
  }

  assignment(): TopicPartition[] {
    return [...this.parts.keys()].map(toTp);
  }

  commit(offsets: TopicPartitionOffset | readonly TopicPartitionOffset[]): Promise<void> {
    return this.queueCommit(offsets, true);
  }

  commitLater(offsets: TopicPartitionOffset | readonly TopicPartitionOffset[]): void {
    void this.queueCommit(offsets, false).catch(() => undefined); // logged by sendCommits
  }

  /** Settles once the request carrying `offsets` is answered (the next one if one is in flight). */
  private queueCommit(
    offsets: TopicPartitionOffset | readonly TopicPartitionOffset[],
    awaited: boolean,
  ): Promise<void> {
    const list = offsetsOf(offsets);
    for (const { topic, partition, offset } of list)
      this.toCommit.set(tpKey(topic, partition), { topic, partition, offset });
    const queued = (this.queued ??= deferred());
    if (awaited) this.commitAwaited = true;
    this.scheduleCommits();
    return queued.promise;
  }

  /**
   * Sends what is queued now, or, for `commitLater` positions alone, once `commitIntervalMs` has
   * passed since the last request: a busy member commits a few times a second instead of after
   * every turn (each request is a round trip to the coordinator), and a crash replays at most that
   * much more of the log, which the stages apply idempotently.
   */
  private scheduleCommits(): void {
    if (this.committing || this.toCommit.size === 0) return;
    const wait = this.commitAwaited ? 0 : this.lastCommitAt + this.commitIntervalMs - Date.now();
    if (wait > 0) {
      this.commitTimer ??= setTimeout(() => {
        this.commitTimer = undefined;
        if (!this.closed) this.scheduleCommits(); // close() sends what is queued itself
      }, wait);
      return;
    }
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.committing = this.sendCommits();
  }

  /** One commit request at a time, each with every position queued while the previous travelled. */
  private async sendCommits(): Promise<void> {
    let refused = false;
    try {
      while (this.toCommit.size) {
        const sent = new Map(this.toCommit);
        this.toCommit.clear();
        const done = this.queued!;
        this.queued = undefined;
        this.commitAwaited = false;
        this.lastCommitAt = Date.now();
        try {
          await this.consumer.commitOffsets([...sent.values()]);
          done.resolve();
        } catch (e) {
          refused = true;
          this.logger.debug?.(`group ${this.groupId}: commit refused: ${errorText(e)}`);
          // Kept for the next request unless superseded or no longer this member's.
          for (const [k, o] of sent) if (this.parts.has(k) && !this.toCommit.has(k)) this.toCommit.set(k, o);
          if (this.toCommit.size) this.queued ??= deferred();
          done.reject(e);
          return;
        }
        // Queued while it travelled: paced like any commitLater (a waiting caller goes at once).
        if (!this.commitAwaited && this.commitIntervalMs > 0) break;
      }
    } finally {
      this.committing = undefined;
      // A refused request waits for the next position (a rebalance would refuse a retry too).
      if (!refused) this.scheduleCommits();
    }
  }

  private get commitIntervalMs(): number {
    return this.config.consumer?.commitIntervalMs ?? 0;
  }

  /** What is queued goes now (before a hand-over or close), not at the pacing timer. */
  private flushCommits(): void {
    if (this.toCommit.size === 0) return;
    this.commitAwaited = true;
    this.scheduleCommits();
  }

  committedAtAssignment({ topic, partition }: TopicPartition): string | undefined {
    return this.parts.get(tpKey(topic, partition))?.committed;
  }

  seek({ topic, partition, offset }: TopicPartitionOffset): void {
    const st = this.parts.get(tpKey(topic, partition));
    if (!st) throw new Error(`seek: ${topic}/${partition} is not assigned to this member`);
    st.position = BigInt(offset);
    st.epoch++;
    this.consumer.seek({ topic, partition, offset });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.resumeTimers.values()) clearTimeout(t);
    this.resumeTimers.clear();
    this.settleJoin(new BusClosedError());
    await this.starting?.catch(() => undefined);
    // While still a member: let the handler in flight finish, then onRevoked (it may still commit).
    await this.inflight;
    await this.assigning;
    await this.commitsSent();
    const lost = this.assignment();
    this.parts.clear();
    const began = Date.now();
    await this.notify(this.options.onRevoked, lost, 'onRevoked');
    const revokedAt = Date.now();
    try {
      await this.commitsSent();
      await this.consumer.disconnect();
      if (lost.length)
        this.logger.log(
          `group ${this.groupId}: left, handing over [${partitionList(lost)}] (onRevoked ${revokedAt - began} ms, leave ${Date.now() - revokedAt} ms)`,
        );
    } finally {
      // Listed until the member has left: its entry goes with it.
      await this.liveness?.close();
      this.onClose?.();
    }
  }

  /** Every queued position sent (or refused), a refused one tried once more. */
  private async commitsSent(): Promise<void> {
    for (let tries = 0; tries < 2 && (this.committing || this.toCommit.size); tries++) {
      this.flushCommits();
      await this.committing;
    }
    // A position refused or queued at the end may have left a pacing timer behind.
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.queued?.reject(new BusClosedError());
    this.queued = undefined;
    this.toCommit.clear();
  }

  private settleJoin(error?: Error): void {
    if (!this.joined || this.joined.done) return;
    this.joined.done = true;
    if (error) this.joined.reject(error);
    else this.joined.resolve();
  }

  private onJoin(memberAssignment: Record<string, number[]>): void {
    const next = new Set<string>();
    for (const topic of this.options.topics) {
      for (const partition of memberAssignment[topic] ?? []) next.add(tpKey(topic, partition));
    }
    // kafkajs restarts kept partitions from the committed offset: continue where this member was.
    for (const [k, st] of this.parts) {
      if (next.has(k) && st.position !== undefined) {
        const [topic, partition] = k.split('\u0000');
        st.epoch++;
        this.consumer.seek({ topic: topic!, partition: Number(partition), offset: st.position.toString() });
      }
    }
    const first = this.generations++ === 0;
    this.assigning = this.assigning.then(() => this.applyAssignment(next, first));
  }

  private async applyAssignment(next: Set<string>, first: boolean): Promise<void> {
    if (this.closed) return;
    this.flushCommits();
    const revoked = [...this.parts.keys()].filter((k) => !next.has(k));
    const gained = [...next].filter((k) => !this.parts.has(k));
    for (const k of revoked) {
      this.parts.delete(k);
      clearTimeout(this.resumeTimers.get(k));
      this.resumeTimers.delete(k);
    }
    // kafkajs keeps a partition paused across rebalances: one revoked while it waited for a retry
    // (a commit refused by the rebalance itself) and assigned back later would never be fetched.
    const paused = new Set(this.consumer.paused().flatMap((t) => t.partitions.map((p) => tpKey(t.topic, p))));
    const stale = [...revoked, ...gained].filter((k) => paused.has(k)).map(toTp);
    if (stale.length)
      this.consumer.resume(stale.map(({ topic, partition }) => ({ topic, partitions: [partition] })));
    const began = Date.now();
    await this.notify(this.options.onRevoked, revoked.map(toTp), 'onRevoked');
    const revokedAt = Date.now();
    for (const k of gained) this.parts.set(k, { epoch: 0, attempt: 0 });
    const atLatest = first && this.latest !== undefined;
    const committed = gained.length
      ? await this.committedOffsets(gained, atLatest)
      : new Map<string, string>();
    for (const [k, offset] of committed) this.parts.get(k)!.committed = offset;
    if (atLatest && gained.length) this.startAtLatest(gained, committed);
    await this.notify(this.options.onAssigned, gained.map(toTp), 'onAssigned');
    if (gained.length || revoked.length) {
      // Failover timing: what moved and how long the hand-over took in this member.
      const list = (keys: string[]) => partitionList(keys.map(toTp));
      this.logger.log(
        `group ${this.groupId}: gained [${list(gained)}] lost [${list(revoked)}] (onRevoked ${revokedAt - began} ms, onAssigned ${Date.now() - revokedAt} ms)`,
      );
    }
    if (first) this.settleJoin();
  }

  /** The group's committed offsets of `keys` (those it has committed; best effort). */
  private async committedOffsets(keys: string[], required: boolean): Promise<Map<string, string>> {
    const wanted = new Set(keys);
    const topics = [...new Set(keys.map((k) => toTp(k).topic))];
    const out = new Map<string, string>();
    try {
      for (const t of await this.admin.fetchOffsets({ groupId: this.groupId, topics })) {
        for (const p of t.partitions) {
          const k = tpKey(t.topic, p.partition);
          if (wanted.has(k) && BigInt(p.offset) >= 0n) out.set(k, p.offset);
        }
      }
    } catch (e) {
      // A start at 'latest' needs them; otherwise only an optimisation of replays is lost.
      if (required) throw e;
      this.logger.warn(`group ${this.groupId}: committed offsets unavailable: ${errorText(e)}`);
    }
    return out;
  }

  /** Partitions the group never committed start at the end recorded before joining. */
  private startAtLatest(gained: string[], committed: Map<string, string>): void {
    for (const k of gained) {
      const end = this.latest!.get(k);
      if (end !== undefined && !committed.has(k)) this.seek({ ...toTp(k), offset: end });
    }
  }

  /** True when others may have evicted this member (see MemberLiveness.fresh). */
  private suspect(): boolean {
    return this.liveness !== undefined && !this.liveness.fresh();
  }

  private async onMessage({ topic, partition, message, heartbeat }: EachMessagePayload): Promise<void> {
    const key = tpKey(topic, partition);
    const before = this.parts.get(key);
    const epoch = before?.epoch ?? 0;
    await this.assigning; // onAssigned (and its seeks) before any message of the new assignment
    const st = this.parts.get(key);
    if (this.closed || !st || (before && before !== st) || st.epoch !== epoch) return; // stale: kafkajs refetches
    const offset = BigInt(message.offset);
    if (st.position !== undefined && offset < st.position) return; // delivered before a rebalance
    if (this.suspect() && !(await this.beat(heartbeat, topic, partition, st, epoch))) return;
    const run = this.deliver(topic, partition, message, st, offset, epoch);
    this.inflight = run;
    await run;
  }

  /** Batched turns: the fetched batch, from the partition's position, in chunks of `maxBatch`. */
  private async onBatch({ batch, isStale, heartbeat }: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    const key = tpKey(topic, partition);
    const before = this.parts.get(key);
    const epoch = before?.epoch ?? 0;
    await this.assigning;
    const st = this.parts.get(key);
    if (this.closed || !st || (before && before !== st) || st.epoch !== epoch) return;
    const from = st.position;
    // A batch fetched before a seek can reach us after it, having waited behind other partitions'
    // turns (e.g. onAssigned restoring a snapshot): delivered, it would skip the inputs between
    // the seek and the batch, and a shard's state would no longer be f(snapshot, log).
    if (isStale()) return; // kafkajs refetches from the pending seek
    const fresh =
      from === undefined ? batch.messages : batch.messages.filter((m) => BigInt(m.offset) >= from);
    for (let i = 0; i < fresh.length; i += this.maxBatch) {
      // A long batch (a replay) keeps the session alive, and learns of a rebalance early. A member
      // that may have been evicted (see suspect) asks the coordinator before delivering.
      if ((i > 0 || this.suspect()) && !(await this.beat(heartbeat, topic, partition, st, epoch))) return;
      const chunk = fresh.slice(i, i + this.maxBatch);
      const last = BigInt(chunk[chunk.length - 1]!.offset);
      const run = this.deliver(topic, partition, chunk, st, last, epoch);
      this.inflight = run;
      if (!(await run) || this.closed || st.epoch !== epoch) return;
    }
  }

  /**
   * Heartbeat between chunks of a batch. False when the group is rebalancing: the partition is sought
   * back to its position (kafkajs would go on after the whole batch) and the rest waits for the rejoin.
   */
  private async beat(
    heartbeat: () => Promise<void>,
    topic: string,
    partition: number,
    st: PartitionState,
    epoch: number,
  ): Promise<boolean> {
    try {
      await heartbeat();
      return !this.closed && st.epoch === epoch;
    } catch {
      if (!this.closed && st.epoch === epoch && st.position !== undefined)
        this.seek({ topic, partition, offset: st.position.toString() });
      return false;
    }
  }

  /** Hands `messages` (one, or a batch) to the handler; on failure seeks back to the first of them. */
  private async deliver(
    topic: string,
    partition: number,
    messages: EachMessagePayload['message'] | readonly EachMessagePayload['message'][],
    st: PartitionState,
    offset: bigint,
    epoch: number,
  ): Promise<boolean> {
    const decode = (message: EachMessagePayload['message']) => toBusMessage(topic, partition, message);
    const list = Array.isArray(messages) ? messages : undefined;
    const message = list ? list[0]! : (messages as EachMessagePayload['message']);
    try {
      if (list) await this.options.batchHandler!(list.map(decode), this);
      else await this.options.handler!(decode(message));
    } catch (e) {
      const key = tpKey(topic, partition);
      // Revoked meanwhile: its new owner replays it.
      if (this.closed || st.epoch !== epoch || this.parts.get(key) !== st) return false;
      // Redeliver from this message after a backoff: pause the partition and seek back to it.
      st.attempt++;
      const delay = retryDelay(st.attempt, this.config.retry);
      this.logger.warn(
        `handler failed on ${topic}/${partition}@${message.offset} (attempt ${st.attempt}, retry in ${delay} ms): ${errorText(e)}`,
      );
      this.consumer.pause([{ topic, partitions: [partition] }]);
      this.seek({ topic, partition, offset: message.offset });
      this.resumeTimers.set(
        key,
        setTimeout(() => {
          this.resumeTimers.delete(key);
          if (!this.closed) this.consumer.resume([{ topic, partitions: [partition] }]);
        }, delay),
      );
      return false;
    }
    st.attempt = 0;
    if (st.epoch === epoch) st.position = offset + 1n;
    return true;
  }

  private async notify(listener: PartitionsListener | undefined, tps: TopicPartition[], name: string) {
    if (!listener || !tps.length) return;
    try {
      await listener(tps, this);
    } catch (e) {
      this.logger.error(`${name} of group ${this.groupId} failed: ${errorText(e)}`);
    }
  }
}

/** `topic:0,1 other:2` (the topic alone when the member has one). */
export function partitionList(tps: TopicPartition[]): string {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of tps) byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  if (byTopic.size === 1) return [...byTopic.values()][0]!.join(',');
  return [...byTopic].map(([topic, ps]) => `${topic}:${ps.join(',')}`).join(' ');
}

export function toTp(k: string): TopicPartition {
  const [topic, partition] = k.split('\u0000');
  return { topic: topic!, partition: Number(partition) };
}

/** A record as kafkajs decoded it (a fetched one, or a group member's), as the bus hands it over. */
export function toBusMessage(
  topic: string,
  partition: number,
  message: Pick<EachMessagePayload['message'], 'offset' | 'key' | 'value' | 'headers' | 'timestamp'>,
): BusMessage {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value ? JSON.parse(message.value.toString('utf8')) : null,
    headers: decodeHeaders(message.headers),
    timestamp: Number(message.timestamp),
  };
}

function decodeHeaders(headers: IHeaders | undefined): BusHeaders {
  const out: BusHeaders = {};
  if (!headers) return out;
  for (const [k, v] of Object.entries(headers)) {
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    if (last !== undefined) out[k] = Buffer.isBuffer(last) ? last.toString('utf8') : String(last);
  }
  return out;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined); // commitLater's callers do not wait; commit's get the rejection
  return { promise, resolve, reject };
}
