// Why this module is long: a group, its members and their per-partition cursors share one assignment and turn state; split, each part would reach into the others' privates.
import {
  type BatchHandler,
  type BusConfig,
  type BusHeaders,
  type BusLogger,
  type BusMessage,
  checkHandlers,
  type MessageHandler,
  type PartitionsListener,
  type SubscribeOptions,
  type Subscription,
  type TopicPartition,
  type TopicPartitionOffset,
  offsetsOf,
} from '../bus';
import { errorText, retryDelay } from '../logger';
import { KeyPartitioner } from '../partitioner';
import type { BackgroundTurn, BackgroundTurns } from './background-turns';
import type { MemoryBus } from './memory-bus';

/** The memory bus's partitions, cursors and consumer groups (the log itself is MemoryBus). */
export const EMPTY_HEADERS: BusHeaders = Object.freeze({}) as BusHeaders;
/** A cursor yields to the event loop after this many consecutive messages (long replays). */
const YIELD_EVERY = 4096;
/**
 * With a journal, a partition drops the messages every reader has passed once this many could go,
 * rather than holding the newest `retain` of each (5,000 of each of 8 partitions of each topic, a
 * few hundred MB on a busy exchange, for readers that are nearly always at the end).
 */
const TRIM_EVERY = 32;

export const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** Reads messages `[from, to)` that were dropped from memory (from the journal), in order. */
export type OlderReader = (log: PartitionLog, from: number, to: number) => BusMessage[];

export class PartitionLog {
  /** The first offset the log still has: older ones were deleted with their journal segments. */
  start = 0;
  /** Offset of `messages[0]`: older messages were dropped from memory (`retain`). */
  base = 0;
  /** Visible messages held in memory; messages[i].offset === String(base + i). */
  messages: BusMessage[] = [];
  /** Next offset to hand out (ahead of the visible end while journal writes are in flight). */
  end = 0;
  private waiting: Cursor[] = [];
  private spare: Cursor[] = [];
  /** The cursors reading this partition (of any group): messages all of them passed can go. */
  private readonly readers = new Set<Cursor>();
  private sinceTrim = 0;

  /**
   * `retain`: with a journal to read older messages from (`older`), at most about twice this many
   * are held in memory (the oldest are dropped in bulk once there are twice as many), and fewer
   * while the partition has readers: what all of them read is dropped too (a seek back or a new
   * group reads it from the journal). Without a journal every message stays.
   */
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly retain = Infinity,
    readonly older?: OlderReader,
  ) {}

  /** The offset after the last visible message. */
  get visibleEnd(): number {
    return this.base + this.messages.length;
  }

  /** Visible messages `[from, to)`, from memory or, below `base`, from the journal. */
  read(from: number, to: number): BusMessage[] {
    if (from >= this.base) return this.messages.slice(from - this.base, to - this.base);
    if (!this.older) throw new Error(`${this.topic}: offset ${from} is no longer held`);
    return this.older(this, from, Math.min(to, this.base));
  }

  append(message: BusMessage, taps: ((m: BusMessage) => void)[]): void {
    this.hold(message);
    if (this.waiting.length) {
      const woken = this.waiting;
      this.waiting = this.spare;
      for (let i = 0; i < woken.length; i++) woken[i]!.wake();
      woken.length = 0;
      this.spare = woken;
    }
    for (let i = 0; i < taps.length; i++) taps[i]!(message);
  }

  /** Adds the next visible message (a journal replay has no reader to wake yet). */
  hold(message: BusMessage): void {
    this.messages.push(message);
    if (!this.older) return;
    if (this.messages.length >= 2 * this.retain) this.dropBelow(this.visibleEnd - this.retain);
    else if (++this.sinceTrim >= TRIM_EVERY && this.readers.size > 0) {
      this.sinceTrim = 0;
      let read = this.visibleEnd;
      for (const r of this.readers) if (r.position < read) read = r.position;
      if (read - this.base >= TRIM_EVERY) this.dropBelow(read);
    }
  }

  private dropBelow(offset: number): void {
    this.messages = this.messages.slice(offset - this.base);
    this.base = offset;
  }

  wait(cursor: Cursor): void {
    this.waiting.push(cursor);
  }

  addReader(cursor: Cursor): void {
    this.readers.add(cursor);
  }

  removeReader(cursor: Cursor): void {
    this.readers.delete(cursor);
  }
}

export class TopicLog {
  readonly partitions: PartitionLog[];
  readonly partitioner: KeyPartitioner;
  readonly taps: ((m: BusMessage) => void)[] = [];

  constructor(
    readonly name: string,
    count: number,
    retain = Infinity,
    older?: OlderReader,
  ) {
    this.partitioner = new KeyPartitioner(count);
    this.partitions = Array.from({ length: count }, (_, p) => new PartitionLog(name, p, retain, older));
  }
}

/** One member's reader of one partition: in order, retrying failures; background ones via BackgroundTurns. */
class Cursor implements BackgroundTurn {
  epoch = 0;
  private running = false;
  private scheduled = false;
  private stopped = false;
  private waiting = false;
  private attempt = 0;
  /** Until its assignment's listener returned: a seek there moves it, delivers nothing yet. */
  private pending = true;
  private idle?: () => void;
  private sleepTimer?: NodeJS.Timeout;
  private sleepDone?: () => void;

  constructor(
    private readonly member: MemberSubscription,
    readonly log: PartitionLog,
    readonly partition: number,
    public position: number,
  ) {
    log.addReader(this);
  }

  /** The log has a new message for a waiting cursor. */
  wake(): void {
    this.waiting = false;
    this.kick();
  }

  start(): void {
    this.pending = false;
    this.kick();
  }

  /** Runs the cursor soon (a microtask, or its background turn): never inside the publisher's call. */
  kick(): void {
    if (this.pending || this.running || this.scheduled || this.stopped) return;
    this.scheduled = true;
    if (this.member.background) this.member.turns.ready(this);
    else queueMicrotask(this.runTurn);
  }

  /** Starts the cursor (its microtask, or its turn from BackgroundTurns). */
  readonly runTurn = (): void => {
    this.scheduled = false;
    if (!this.running && !this.stopped) void this.run();
  };

  seek(offset: number): void {
    this.position = offset;
    this.epoch++;
    this.kick();
  }

  /** Resolves once no handler of this cursor runs any more. */
  stop(): Promise<void> {
    this.stopped = true;
    this.log.removeReader(this);
    if (this.member.background) this.member.turns.cancel(this);
    if (this.sleepTimer) {
      clearTimeout(this.sleepTimer);
      this.sleepDone?.();
    }
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  private async run(): Promise<void> {
    this.running = true;
    const log = this.log;
    const { handler, batchHandler, background, turns } = this.member;
    if (!background) turns.enter();
    let streak = 0;
    let tookTurn = false;
    try {
      while (!this.stopped) {
        const pos = this.position;
        const visible = log.visibleEnd;
        if (pos < log.start) {
          // Deleted by retention: go on from the oldest kept, as Kafka's earliest reset does.
          this.member.logger.warn(
            `${log.topic}/${this.partition}: offset ${pos} was deleted by retention; reading from ${log.start}`,
          );
          this.position = log.start;
          continue;
        }
        if (pos >= visible) {
          if (!this.waiting) {
            this.waiting = true;
            log.wait(this);
          }
          break;
        }
        // A background cursor takes one turn per start: what arrived meanwhile is its next turn.
        if (background && tookTurn) {
          this.scheduled = true;
          turns.ready(this);
          break;
        }
        const epoch = this.epoch;
        let end = batchHandler ? Math.min(visible, pos + this.member.maxBatch) : pos + 1;
        try {
          let r: unknown;
          if (pos >= log.base) {
            const messages = log.messages;
            const at = pos - log.base;
            r = batchHandler
              ? batchHandler(messages.slice(at, at + end - pos), this.member)
              : handler!(messages[at]!);
          } else {
            // Dropped from memory: read back from the journal (a seek or a new group behind).
            const older = log.read(pos, end);
            if (older.length === 0) throw new Error(`offset ${pos} is in neither memory nor the journal`);
            end = pos + older.length;
            r = batchHandler ? batchHandler(older, this.member) : handler!(older[0]!);
          }
          if (r !== undefined) await r;
          const committing = this.member.takeLater(log.topic, this.partition);
          if (committing) await committing;
        } catch (e) {
          this.attempt++;
          const delay = retryDelay(this.attempt, this.member.retry);
          this.member.logger.warn(
            `handler failed on ${log.topic}/${this.partition}@${pos} (attempt ${this.attempt}, retry in ${delay} ms): ${errorText(e)}`,
          );
          await this.sleep(delay);
          continue;
        }
        this.attempt = 0;
        tookTurn = true;
        if (epoch === this.epoch) this.position = end;
        streak += end - pos;
        if (streak >= YIELD_EVERY) {
          streak = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      this.running = false;
      if (!background) turns.leave();
      if (this.stopped) this.idle?.();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.sleepDone = resolve;
      this.sleepTimer = setTimeout(resolve, ms);
    });
  }
}

export class MemberSubscription implements Subscription {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handler?: MessageHandler;
  readonly batchHandler?: BatchHandler;
  readonly maxBatch: number;
  readonly retry: BusConfig['retry'];
  readonly background: boolean;
  readonly turns: BackgroundTurns;
  readonly cursors = new Map<string, Cursor>();
  private readonly committedAtGain = new Map<string, number>();
  private readonly later = new Map<string, Promise<void>>();
  closed = false;

  constructor(
    private readonly bus: MemoryBus,
    private readonly group: Group,
    private readonly options: SubscribeOptions,
    readonly logger: BusLogger,
  ) {
    this.groupId = options.groupId;
    this.topics = [...options.topics];
    this.handler = options.handler;
    this.batchHandler = options.batchHandler;
    this.maxBatch = checkHandlers(options);
    this.retry = bus.retry;
    this.background = options.background === true;
    this.turns = bus.turns;
  }

  assignment(): TopicPartition[] {
    return [...this.cursors.values()].map((c) => ({ topic: c.log.topic, partition: c.partition }));
  }

  commit(offsets: TopicPartitionOffset | readonly TopicPartitionOffset[]): Promise<void> {
    if (this.options.assign) return Promise.reject(this.noGroup());
    const list = offsetsOf(offsets);
    return Promise.all(list.map((o) => this.bus.commitOffset(this.group, o))).then(() => undefined);
  }

  /**
   * Here the commit is a journal record written with the turn's next write; the cursor still
   * waits for it before its next turn (see Cursor.run), as a turn that awaited `commit` did: the
   * inputs meanwhile make that turn larger.
   */
  commitLater(offsets: TopicPartitionOffset | readonly TopicPartitionOffset[]): void {
    if (this.options.assign) throw this.noGroup();
    const list = offsetsOf(offsets);
    for (const o of list) {
      const written = this.bus
        .commitOffset(this.group, o)
        .catch((e: unknown) => this.logger.warn(`group ${this.groupId}: ${String(e)}`));
      this.later.set(tpKey(o.topic, o.partition), written);
    }
  }

  private noGroup(): Error {
    return new Error(`reader ${this.groupId} reads without a consumer group: there is nothing to commit`);
  }

  /** Partitions this member reads without sharing them (`assign`), or undefined: the group's split. */
  assigned(): TopicPartition[] | undefined {
    const assign = this.options.assign;
    if (assign === undefined) return undefined;
    if (assign !== 'all') return [...assign];
    return this.topics.flatMap((topic) =>
      this.bus.topicLog(topic).partitions.map((_, partition) => ({ topic, partition })),
    );
  }

  /** The commit a turn of this partition queued with commitLater, taken (Cursor.run awaits it). */
  takeLater(topic: string, partition: number): Promise<void> | undefined {
    const key = tpKey(topic, partition);
    const written = this.later.get(key);
    if (written) this.later.delete(key);
    return written;
  }

  committedAtAssignment({ topic, partition }: TopicPartition): string | undefined {
    const key = tpKey(topic, partition);
    const c = this.cursors.has(key) ? this.committedAtGain.get(key) : undefined;
    return c === undefined ? undefined : String(c);
  }

  seek({ topic, partition, offset }: TopicPartitionOffset): void {
    const cursor = this.cursors.get(tpKey(topic, partition));
    if (!cursor) throw new Error(`seek: ${topic}/${partition} is not assigned to this member`);
    const o = Number(offset);
    if (!Number.isSafeInteger(o) || o < 0 || o > cursor.log.end) {
      throw new RangeError(`seek: offset ${offset} outside ${topic}/${partition} [0, ${cursor.log.end}]`);
    }
    cursor.seek(o);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return this.group.leave(this);
  }

  /** Stops the cursors of `lost`, then tells the application. */
  async revoke(lost: TopicPartition[]): Promise<void> {
    if (!lost.length) return;
    const stopping: Promise<void>[] = [];
    for (const tp of lost) {
      const key = tpKey(tp.topic, tp.partition);
      const c = this.cursors.get(key);
      if (c) stopping.push(c.stop());
      this.cursors.delete(key);
    }
    await Promise.all(stopping);
    await this.notify(this.options.onRevoked, lost, 'onRevoked');
  }

  /** Positions cursors at the group's committed offsets, tells the application, then starts them. */
  async assign(gained: TopicPartition[]): Promise<void> {
    if (!gained.length) return;
    const fresh: Cursor[] = [];
    for (const tp of gained) {
      const log = this.bus.partitionLog(tp.topic, tp.partition);
      const committed = this.group.committed.get(tpKey(tp.topic, tp.partition));
      if (committed === undefined) this.committedAtGain.delete(tpKey(tp.topic, tp.partition));
      else this.committedAtGain.set(tpKey(tp.topic, tp.partition), committed);
      const position = committed ?? (this.options.start === 'latest' ? log.end : log.start);
      const cursor = new Cursor(this, log, tp.partition, position);
      this.cursors.set(tpKey(tp.topic, tp.partition), cursor);
      fresh.push(cursor);
    }
    await this.notify(this.options.onAssigned, gained, 'onAssigned');
    for (const c of fresh) if (this.cursors.get(tpKey(c.log.topic, c.partition)) === c) c.start();
  }

  owns(tp: TopicPartition): boolean {
    return this.cursors.has(tpKey(tp.topic, tp.partition));
  }

  private async notify(listener: PartitionsListener | undefined, tps: TopicPartition[], name: string) {
    if (!listener) return;
    try {
      await listener(
        tps.map((tp) => ({ ...tp })),
        this,
      );
    } catch (e) {
      this.logger.error(`${name} of group ${this.groupId} failed: ${errorText(e)}`);
    }
  }
}

/** A consumer group inside the process: members in join order, committed offsets, serialized rebalances. */
export class Group {
  readonly members: MemberSubscription[] = [];
  readonly committed = new Map<string, number>();
  /** The committed offsets already in the journal (a new segment's head copies only these). */
  readonly journaled = new Map<string, number>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    private readonly bus: MemoryBus,
  ) {}

  join(member: MemberSubscription): Promise<void> {
    this.members.push(member);
    return this.enqueue(() => this.rebalance());
  }

  leave(member: MemberSubscription): Promise<void> {
    const i = this.members.indexOf(member);
    if (i >= 0) this.members.splice(i, 1);
    return this.enqueue(async () => {
      await this.rebalance(member);
      // Nothing to resume from: a group of one reader (a replay's) must not outlive it.
      if (this.members.length === 0 && this.committed.size === 0) this.bus.dropGroup(this);
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Round-robin over the members subscribed to each topic; revocations complete before assignments. */
  private async rebalance(leaving?: MemberSubscription): Promise<void> {
    const target = new Map<MemberSubscription, TopicPartition[]>(
      this.members.map((m) => [m, m.assigned() ?? []]),
    );
    // A reader without a group (`assign`) is alone in a group of its own and takes what it names.
    const topics = this.members.some((m) => m.assigned())
      ? []
      : [...new Set(this.members.flatMap((m) => m.topics))];
    let i = 0;
    for (const topic of topics) {
      const eligible = this.members.filter((m) => m.topics.includes(topic));
      const count = this.bus.topicLog(topic).partitions.length;
      for (let partition = 0; partition < count; partition++) {
        target.get(eligible[i++ % eligible.length]!)!.push({ topic, partition });
      }
    }
    const inTarget = (m: MemberSubscription, tp: TopicPartition) =>
      target.get(m)?.some((t) => t.topic === tp.topic && t.partition === tp.partition) ?? false;
    const everyone = leaving ? [...this.members, leaving] : this.members;
    await Promise.all(everyone.map((m) => m.revoke(m.assignment().filter((tp) => !inTarget(m, tp)))));
    await Promise.all(this.members.map((m) => m.assign(target.get(m)!.filter((tp) => !m.owns(tp)))));
  }
}
