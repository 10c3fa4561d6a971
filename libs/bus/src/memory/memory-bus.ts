import { randomUUID } from 'node:crypto';
import {
  Bus,
  BusClosedError,
  type BusConfig,
  type BusHeaders,
  type BusLogger,
  type BusMessage,
  HEADER_CORRELATION_ID,
  HEADER_REPLY_KEY,
  HEADER_REPLY_TO,
  type PublishResult,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
  type TopicPartitionOffset,
  UnknownTopicError,
} from '../bus';
import { busLogger } from '../logger';
import { PendingReplies } from '../pending-replies';
import { BackgroundTurns } from './background-turns';
import { Journal, type JournalOptions, type JournalRecord } from './journal';
import { SegmentHeads } from './segment-heads';
import { EMPTY_HEADERS, Group, MemberSubscription, type PartitionLog, TopicLog, tpKey } from './memory-group';

export interface MemoryBusOptions extends BusConfig {
  /** Journal every message and commit to `journal.dir` and replay it on connect; none by default. */
  journal?: JournalOptions;
  /**
   * Deliver a JSON copy of each value instead of the published object, as Kafka would: catches
   * values that do not survive JSON (Dates, BigInts, class instances) in tests, at a cost in speed.
   */
  cloneValues?: boolean;
  /**
   * With a journal, the messages per partition held in memory (the newest; at most twice as many
   * before the oldest are dropped in bulk): a reader further behind (a seek back to a snapshot, a
   * new group from the start) reads them back from the journal. Default 5,000 (BUS_MEMORY_RETAIN).
   * Without a journal every message stays in memory.
   */
  retain?: number;
  /**
   * Longest a background consumer's turn waits for the others to have nothing in flight (default
   * 10 ms, BUS_MEMORY_BACKGROUND_MS); see SubscribeOptions.background.
   */
  backgroundMaxDelayMs?: number;
  /**
   * With a journal whose segments expire (`journal.retentionMs`): topics kept whole regardless,
   * as Kafka keeps a compacted topic's latest message per key (the markets topic). Their messages
   * are copied into each new segment's head, so they should be few.
   */
  keepWhole?: readonly string[];
}

const DEFAULT_RETAIN = 5_000;
const DEFAULT_BACKGROUND_MAX_DELAY_MS = 10;
/** Every this many offsets of a partition, the journal position of its record is kept (the index). */
const INDEX_EVERY = 64;

/** Where in the journal a partition's records are: position of the batch or line holding every INDEX_EVERY-th offset. */
interface JournalIndex {
  offsets: number[];
  positions: number[];
}

/**
 * The embedded log: partitions are arrays in this process; consumer groups split them among the
 * process's members. With `journal`, every message and commit is appended to a file before it is
 * acknowledged or delivered, and replayed on connect (see Journal for the durability guarantee);
 * replies (`replyTopic`) are not journaled, only held back until the journal write of their turn.
 */
export class MemoryBus extends Bus {
  readonly kind = 'memory' as const;
  readonly retry: BusConfig['retry'];
  private readonly topics = new Map<string, TopicLog>();
  private readonly groups = new Map<string, Group>();
  private readonly replies = new PendingReplies();
  private readonly tapped = new Set<string>();
  private readonly logger: BusLogger;
  private readonly instanceId = randomUUID();
  private readonly journaledTopics = new Map<string, number>();
  private readonly index = new Map<PartitionLog, JournalIndex>();
  private readonly heads: SegmentHeads;
  private journal?: Journal;
  private connected = false;
  /** @internal Turn order of the process's consumers (foreground first). */
  readonly turns: BackgroundTurns;

  constructor(private readonly options: MemoryBusOptions) {
    super();
    this.turns = new BackgroundTurns(
      options.backgroundMaxDelayMs ?? DEFAULT_BACKGROUND_MAX_DELAY_MS,
      () => this.journal?.busy === true,
    );
    this.logger = busLogger(options);
    this.retry = options.retry;
    for (const [name, count] of Object.entries(options.topics))
      this.topics.set(name, this.newTopic(name, count));
    this.heads = new SegmentHeads(this.topics, this.groups, {
      keepWhole: new Set(options.keepWhole),
      replyTopic: options.replyTopic,
      logger: this.logger,
      reindex: (log, firstBase) => this.reindex(log, firstBase),
    });
  }

  private newTopic(name: string, count: number): TopicLog {
    if (!this.options.journal) return new TopicLog(name, count);
    return new TopicLog(name, count, this.options.retain ?? DEFAULT_RETAIN, (log, from, to) =>
      this.readOlder(log, from, to),
    );
  }

  /**
   * Keeps where `offset` of `log` is in the journal, for every INDEX_EVERY-th offset and the
   * partition's first (a log that starts past 0 once old segments are deleted).
   */
  private indexAt(log: PartitionLog, offset: number, position: number): void {
    let ix = this.index.get(log);
    if (offset % INDEX_EVERY !== 0 && ix?.offsets.length) return;
    if (!ix) this.index.set(log, (ix = { offsets: [], positions: [] }));
    ix.offsets.push(offset);
    ix.positions.push(position);
  }

  /**
   * Segments before `firstBase` are gone: the index forgets their positions, and the partition's
   * first offset still in the journal is found from `firstBase` (its head holds what was copied).
   */
  private reindex(log: PartitionLog, firstBase: number): void {
    const ix = this.index.get(log);
    if (!ix) return;
    let drop = 0;
    while (drop < ix.positions.length && ix.positions[drop]! < firstBase) drop++;
    ix.offsets.splice(0, drop);
    ix.positions.splice(0, drop);
    if (ix.offsets[0] === undefined || ix.offsets[0] > log.start) {
      ix.offsets.unshift(log.start);
      ix.positions.unshift(firstBase);
    }
  }

  /** Messages `[from, to)` of `log` read back from the journal (dropped from memory). */
  private readOlder(log: PartitionLog, from: number, to: number): BusMessage[] {
    const journal = this.journal;
    const ix = this.index.get(log);
    if (!journal || !ix) return [];
    // The last indexed offset at or before `from`: its record is at or after that position.
    let lo = 0;
    let hi = ix.offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ix.offsets[mid]! <= from) lo = mid;
      else hi = mid - 1;
    }
    if (ix.offsets[lo] === undefined || ix.offsets[lo]! > from) return [];
    const out: BusMessage[] = [];
    journal.readFrom(ix.positions[lo]!, (r) => {
      if (r[0] !== 'm' || r[1] !== log.topic || r[2] !== log.partition) return true;
      const offset = r[3];
      if (offset >= from && offset < to) out.push(messageOf(r));
      return offset < to - 1;
    });
    return out;
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    if (this.options.journal) {
      this.journal = Journal.open(
        this.options.journal,
        this.logger,
        (r, position, segmentBase) => this.restore(r, position, segmentBase),
        () => this.turns.poke(),
        this.heads,
      );
      for (const [name, count] of Object.entries(this.options.topics)) {
        if (!this.journaledTopics.has(name)) this.journal.append(JSON.stringify(['t', name, count]), noop);
      }
    }
    this.connected = true;
  }

  isConnected(): boolean {
    return this.connected && !this.journal?.error;
  }

  publish<T>(topic: string, key: string, value: T, headers?: BusHeaders): Promise<PublishResult> {
    if (!this.connected) return Promise.reject(new BusClosedError());
    const t = this.topics.get(topic);
    if (!t) return Promise.reject(new UnknownTopicError(topic));
    const partition = t.partitioner.partition(key);
    const log = t.partitions[partition]!;
    const offset = log.end++;
    const timestamp = Date.now();
    const journaled = this.journal !== undefined && topic !== this.options.replyTopic;
    if (journaled) this.indexAt(log, offset, this.journal!.position);
    const message: BusMessage = {
      topic,
      partition,
      offset: String(offset),
      key,
      value: this.options.cloneValues ? JSON.parse(JSON.stringify(value)) : value,
      headers: headers ?? EMPTY_HEADERS,
      timestamp,
      inProcess: !this.options.cloneValues,
    };
    const result: PublishResult = { topic, partition, offset: message.offset };
    const journal = this.journal;
    if (!journal) {
      log.append(message, t.taps);
      return Promise.resolve(result);
    }
    if (!journaled) {
      // A reply is for a requester of this process, and none outlives it: not journaled, but
      // delivered only once the records published before it (the effects it reports) are written.
      return new Promise((resolve, reject) => {
        journal.afterWrite((err) => {
          if (err) return reject(err);
          log.append(message, t.taps);
          resolve(result);
        });
      });
    }
    let line: string;
    try {
      line = JSON.stringify(['m', topic, partition, offset, key, value, headers ?? 0, timestamp]);
    } catch (e) {
      log.end--;
      return Promise.reject(e);
    }
    return new Promise((resolve, reject) => {
      journal.append(line, (err) => {
        if (err) return reject(err);
        log.append(message, t.taps);
        resolve(result);
      });
    });
  }

  async subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription> {
    if (!this.connected) throw new BusClosedError();
    for (const topic of options.topics) this.topicLog(topic);
    let group = this.groups.get(options.groupId);
    if (!group) this.groups.set(options.groupId, (group = new Group(options.groupId, this)));
    const member = new MemberSubscription(this, group, options as SubscribeOptions, this.logger);
    await group.join(member);
    return member;
  }

  async request<TReply = unknown>(
    topic: string,
    key: string,
    value: unknown,
    options: RequestOptions,
  ): Promise<BusMessage<TReply>> {
    const replyTopic = options.replyTopic ?? this.options.replyTopic;
    if (!replyTopic) throw new Error('request: no reply topic (options.replyTopic or the bus replyTopic)');
    const replies = this.topicLog(replyTopic);
    if (!this.tapped.has(replyTopic)) {
      this.tapped.add(replyTopic);
      replies.taps.push((m) => this.replies.deliver(m));
    }
    const correlationId = randomUUID();
    const reply = this.replies.wait<TReply>(correlationId, options.timeoutMs, `${topic} request`);
    this.replies.publishing(correlationId);
    try {
      await this.publish(topic, key, value, {
        ...options.headers,
        [HEADER_CORRELATION_ID]: correlationId,
        [HEADER_REPLY_TO]: replyTopic,
        [HEADER_REPLY_KEY]: this.instanceId,
      });
    } catch (e) {
      this.replies.fail(correlationId, e as Error);
    }
    return reply;
  }

  async endOffsets(topic: string): Promise<TopicPartitionOffset[]> {
    return this.topicLog(topic).partitions.map((log, partition) => ({
      topic,
      partition,
      offset: String(log.visibleEnd),
    }));
  }

  partitionFor(topic: string, key: string): number {
    return this.topicLog(topic).partitioner.partition(key);
  }

  async close(): Promise<void> {
    if (!this.connected) return;
    for (const g of this.groups.values()) await Promise.all([...g.members].map((m) => m.close()));
    this.connected = false;
    this.replies.failAll(new BusClosedError());
    this.journal?.close();
    this.journal = undefined;
  }

  /** @internal A group left with no member and no committed offset: a later subscribe starts it afresh. */
  dropGroup(group: Group): void {
    if (this.groups.get(group.id) === group) this.groups.delete(group.id);
  }

  /** Consumer groups held: with members, or with committed offsets (tests). */
  get groupCount(): number {
    return this.groups.size;
  }

  /** @internal */
  topicLog(topic: string): TopicLog {
    const t = this.topics.get(topic);
    if (!t) throw new UnknownTopicError(topic);
    return t;
  }

  /** @internal */
  partitionLog(topic: string, partition: number): PartitionLog {
    return this.topicLog(topic).partitions[partition]!;
  }

  /** @internal */
  commitOffset(group: Group, { topic, partition, offset }: TopicPartitionOffset): Promise<void> {
    const log = this.topicLog(topic).partitions[partition];
    const o = Number(offset);
    if (!log || !Number.isSafeInteger(o) || o < 0) {
      return Promise.reject(new RangeError(`commit: bad position ${topic}/${partition}@${offset}`));
    }
    group.committed.set(tpKey(topic, partition), o);
    const journal = this.journal;
    if (!journal) return Promise.resolve();
    return new Promise((resolve, reject) =>
      journal.append(JSON.stringify(['c', group.id, topic, partition, o]), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }

  private restore(r: JournalRecord, position: number, segmentBase: number): void {
    switch (r[0]) {
      case 't': {
        const [, name, count] = r;
        const configured = this.options.topics[name];
        if (configured !== undefined && configured !== count) {
          throw new Error(
            `bus journal: topic ${name} has ${count} partitions in the journal but ${configured} configured`,
          );
        }
        this.journaledTopics.set(name, count);
        if (!this.topics.has(name)) this.topics.set(name, this.newTopic(name, count));
        return;
      }
      case 'm': {
        const [, topic, partition, offset] = r;
        const log = this.partitionLog(topic, partition);
        // A kept-whole topic's message copied into a later segment's head, already replayed.
        if (offset < log.visibleEnd && this.heads.keepsWhole(topic)) return;
        if (offset !== log.visibleEnd) {
          throw new Error(`bus journal: ${topic}/${partition} offset ${offset} after ${log.visibleEnd - 1}`);
        }
        this.indexAt(log, offset, position);
        log.hold(messageOf(r));
        log.end = offset + 1;
        return;
      }
      case 'c': {
        const [, groupId, topic, partition, offset] = r;
        let group = this.groups.get(groupId);
        if (!group) this.groups.set(groupId, (group = new Group(groupId, this)));
        group.committed.set(tpKey(topic, partition), offset);
        return;
      }
      case 's': {
        const [, topic, partition, start] = r;
        this.heads.restoreStart(this.partitionLog(topic, partition), start, segmentBase);
        return;
      }
      default:
        throw new Error(`bus journal: unknown record ${JSON.stringify(r).slice(0, 80)}`);
    }
  }
}

function noop(): void {}

/** The message a journal record holds (values as JSON gives them back, like after a restart). */
function messageOf(r: Extract<JournalRecord, ['m', ...unknown[]]>): BusMessage {
  const [, topic, partition, offset, key, value, headers, timestamp] = r;
  return {
    topic,
    partition,
    offset: String(offset),
    key,
    value,
    headers: headers || EMPTY_HEADERS,
    timestamp,
    inProcess: false,
  };
}
