import { randomUUID } from 'node:crypto';
import {
  Bus,
  BusClosedError,
  type BusConfig,
  type BusHeaders,
  type BusLogger,
  type BusMessage,
  checkAssigned,
  checkHandlers,
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
import { JournalIndex, messageOf } from './journal-index';
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
   * before the oldest are dropped in bulk), fewer while the partition has readers: what all of them
   * have read is dropped. A reader further behind (a seek back to a snapshot, a new group from the
   * start) reads them back from the journal. Default 5,000 (BUS_MEMORY_RETAIN).
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
const REPLY_RETAIN = 64;
const DEFAULT_BACKGROUND_MAX_DELAY_MS = 10;

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
  private readonly index = new JournalIndex();
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
      reindex: (log, firstBase) => this.index.trim(log, firstBase),
    });
  }

  private newTopic(name: string, count: number): TopicLog {
    if (!this.options.journal) return new TopicLog(name, count);
    // Replies reach their requesters through a tap and are not journaled: a reader joining later
    // gets the last few, as a requester on Kafka gets none from before it listened.
    const retain = name === this.options.replyTopic ? REPLY_RETAIN : (this.options.retain ?? DEFAULT_RETAIN);
    return new TopicLog(name, count, retain, (log, from, to) =>
      this.journal ? this.index.read(this.journal, log, from, to) : [],
    );
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
    if (journaled) this.index.add(log, offset, this.journal!.position);
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
    // Before the group exists: a refused subscription leaves none behind.
    checkHandlers(options as SubscribeOptions);
    checkAssigned(options as SubscribeOptions, (topic) => this.topicLog(topic).partitions.length);
    // A reader without a group (`assign`) gets a group of its own, under a name nobody else has.
    const id = options.assign ? `${options.groupId}#${randomUUID()}` : options.groupId;
    let group = this.groups.get(id);
    if (!group) this.groups.set(id, (group = new Group(id, this)));
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
    const key = tpKey(topic, partition);
    group.committed.set(key, o);
    const journal = this.journal;
    if (!journal) return Promise.resolve();
    return new Promise((resolve, reject) =>
      journal.append(JSON.stringify(['c', group.id, topic, partition, o]), (err) => {
        if (err) return reject(err);
        group.journaled.set(key, o);
        resolve();
      }),
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
        this.index.add(log, offset, position);
        log.hold(messageOf(r));
        log.end = offset + 1;
        return;
      }
      case 'c': {
        const [, groupId, topic, partition, offset] = r;
        let group = this.groups.get(groupId);
        if (!group) this.groups.set(groupId, (group = new Group(groupId, this)));
        group.committed.set(tpKey(topic, partition), offset);
        group.journaled.set(tpKey(topic, partition), offset);
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
