/**
 * The log port: an ordered, partitioned, keyed log (Kafka's model). Services code against `Bus`
 * (also the Nest injection token); the memory and kafka adapters implement it and pass the same
 * conformance suite (`testing/bus-conformance.ts`).
 *
 * Values are JSON-serialisable objects (Kafka carries them as UTF-8 JSON). Keys and header values
 * are strings. Offsets are int64 decimal strings, as Kafka and kafkajs write them.
 */

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface TopicPartitionOffset extends TopicPartition {
  /** int64 as a decimal string. */
  readonly offset: string;
}

export type BusHeaders = Record<string, string>;

export interface BusMessage<T = unknown> {
  readonly topic: string;
  readonly partition: number;
  /** int64 as a decimal string; a partition's first message is "0". */
  readonly offset: string;
  readonly key: string;
  /** Shared with every other consumer of the message in memory mode: never mutate it. */
  readonly value: T;
  readonly headers: Readonly<BusHeaders>;
  /** Milliseconds since the epoch, stamped when published (Kafka CreateTime). */
  readonly timestamp: number;
  /**
   * True when `value` is the very object this process published (the memory bus hands it over as
   * is): built by typed code here, so the consumer edge need not validate it again. Values from the
   * journal on restart, copies (`cloneValues`) and Kafka's values never are.
   */
  readonly inProcess?: boolean;
}

export type PublishResult = TopicPartitionOffset;

export type MessageHandler<T = unknown> = (message: BusMessage<T>) => void | Promise<void>;
/**
 * A batched turn: consecutive messages of one partition, in offset order (at least one). A handler
 * that throws gets the same batch again after a backoff (from its first message), so it must apply
 * idempotently by offset; after it succeeds the partition continues after the batch's last message.
 * It gets the member's subscription too: a turn's commit counts also when the turn runs before
 * `subscribe` has resolved (the first turns of a member run while the group still joins).
 */
export type BatchHandler<T = unknown> = (
  messages: readonly BusMessage<T>[],
  subscription: Subscription,
) => void | Promise<void>;
/** Gets the member's subscription too: `subscription.seek` in onAssigned replays from a snapshot. */
export type PartitionsListener = (
  partitions: TopicPartition[],
  subscription: Subscription,
) => void | Promise<void>;

export interface SubscribeOptions<T = unknown> {
  /** Members of one group split the partitions; each message goes to one member of the group. */
  groupId: string;
  topics: readonly string[];
  /**
   * Called in offset order per partition, one message at a time per partition. A handler that throws
   * (or rejects) gets the same message again after a backoff, and nothing after it in that partition
   * is delivered until it succeeds: a failing message is never skipped.
   */
  handler?: MessageHandler<T>;
  /**
   * Instead of `handler` (exactly one of the two): every message waiting on a partition, up to
   * `maxBatch`, in one call. Stages use it to apply a turn's inputs and publish all their outputs
   * with one durable write and one commit (group commit).
   */
  batchHandler?: BatchHandler<T>;
  /** Most messages in one `batchHandler` call (default 1000). */
  maxBatch?: number;
  /** Partitions this member gained. Runs before any of their messages; `seek` here to replay from a snapshot. */
  onAssigned?: PartitionsListener;
  /** Partitions this member lost (rebalance, close). No message of them is delivered afterwards. */
  onRevoked?: PartitionsListener;
  /** Where a partition the group never committed starts: the first message (default) or the end. */
  start?: 'earliest' | 'latest';
  /**
   * Read these partitions without a consumer group (Kafka's manual assignment, the Java client's
   * `assign`); 'all' is every partition of `topics`. No coordinator, so no wait for a group to form
   * (a new group waits out the broker's initial rebalance delay, 3 s by default) and nothing to
   * commit (`commit` is refused); `start` is where each partition begins, `onAssigned` runs once
   * before any message (it may seek) and `onRevoked` at close. For what every process reads for
   * itself (the markets, a gateway's replies and stream feeds); `groupId` then only names it.
   */
  assign?: 'all' | readonly TopicPartition[];
  /**
   * A consumer behind the order path (a projection into Postgres or the hot store; not a stream
   * feed, whose clients wait on it): the memory bus runs its turns after the process's other
   * consumers have nothing in flight, or once it has waited `backgroundMaxDelayMs`, so they run in
   * larger batches and out of the orders' way. Kafka consumers poll on their own and ignore it.
   */
  background?: boolean;
  /**
   * Kafka: each fetch of this subscription may wait this long for data (the bus's own wait if
   * longer), for topics written rarely (markets, prices) whose readers need no faster turn. A broker
   * answers as soon as data arrives, so it only spares requests; the librdkafka mock holds an
   * empty fetch for the whole wait, so there it is also this reader's latency. The memory bus
   * delivers at once and ignores it.
   */
  minFetchWaitMs?: number;
}

/** `minFetchWaitMs` of the readers of rarely written topics (markets, prices). */
export const RARE_TOPIC_FETCH_WAIT_MS = 250;

export interface Subscription {
  readonly groupId: string;
  /** The partitions this member owns now. */
  assignment(): TopicPartition[];
  /**
   * Stores the group's position. `offset` is the next offset to read (last processed + 1), as in
   * Kafka; a member that gets the partition later starts there. In Kafka mode a commit made during a
   * rebalance fails (the group generation moved on): the caller decides whether to retry.
   */
  commit(offsets: TopicPartitionOffset | readonly TopicPartitionOffset[]): Promise<void>;
  /**
   * `commit` without waiting for it: a stage's turn goes on with its next inputs while the position
   * travels. Kafka sends at most one commit request per member at a time, carrying every position
   * queued meanwhile (several turns and partitions in one); one refused (a rebalance) is logged and
   * made good by the next; `close` sends what is queued before leaving. A crash can lose the last
   * positions: the inputs after the stored one come again, which stages apply idempotently by offset.
   */
  commitLater(offsets: TopicPartitionOffset | readonly TopicPartitionOffset[]): void;
  /**
   * The group's committed offset of an owned partition as it was when this member gained it
   * (undefined: none, or not owned). Every input below it had its outputs published by an earlier
   * owner, so a stage replaying from a snapshot may apply those without publishing again.
   */
  committedAtAssignment(tp: TopicPartition): string | undefined;
  /** The partition's next delivered message is the one at `offset`. Only for owned partitions. */
  seek(target: TopicPartitionOffset): void;
  /** Leaves the group: onRevoked runs and the partitions go to the remaining members. */
  close(): Promise<void>;
}

export interface RequestOptions {
  timeoutMs: number;
  /** Topic the reply is published to; defaults to the adapter's `replyTopic`. */
  replyTopic?: string;
  headers?: BusHeaders;
}

/** Headers of request/reply. A responder answers with `Bus.reply(request, value)`. */
export const HEADER_CORRELATION_ID = 'correlation-id';
export const HEADER_REPLY_TO = 'reply-to';
/** Key of the reply: the requesting bus instance, so one requester's replies share a partition. */
export const HEADER_REPLY_KEY = 'reply-key';

/** Configuration both adapters take. */
export interface BusConfig {
  /** Every topic the process uses, with its partition count. */
  topics: Readonly<Record<string, number>>;
  /** Default reply topic of `request` (must be in `topics`). */
  replyTopic?: string;
  logger?: BusLogger;
  /** Backoff between redeliveries of a message whose handler threw. */
  retry?: { initialMs?: number; maxMs?: number };
}

/** The subset of Nest's LoggerService the bus uses. */
export interface BusLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug?(message: string): void;
}

/** No reply in time. */
export class BusTimeoutError extends Error {
  override readonly name = 'BusTimeoutError';
  constructor(
    message: string,
    /**
     * The request was handed to the log before the deadline, so it may have taken effect (or still
     * may): its outcome is unknown. False: it was never sent and never will be.
     */
    readonly published = false,
  ) {
    super(message);
  }
}

export class UnknownTopicError extends Error {
  override readonly name = 'UnknownTopicError';
  constructor(topic: string) {
    super(`unknown topic "${topic}": add it to the bus topics configuration`);
  }
}

export class BusClosedError extends Error {
  override readonly name = 'BusClosedError';
  constructor() {
    super('the bus is not connected');
  }
}

export const DEFAULT_MAX_BATCH = 1000;

/** Checks that exactly one of `handler` and `batchHandler` is given; returns the batch size limit. */
export function checkHandlers(options: SubscribeOptions<unknown>): number {
  if (!options.handler === !options.batchHandler)
    throw new Error(`subscribe ${options.groupId}: give exactly one of handler and batchHandler`);
  const max = options.maxBatch ?? DEFAULT_MAX_BATCH;
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`subscribe: maxBatch ${max} must be >= 1`);
  return max;
}

/** `commit`'s argument as a list (one position or several). */
export function offsetsOf(
  offsets: TopicPartitionOffset | readonly TopicPartitionOffset[],
): readonly TopicPartitionOffset[] {
  return Array.isArray(offsets) ? offsets : [offsets as TopicPartitionOffset];
}

/** Refuses an assigned partition (`SubscribeOptions.assign`) of a topic not named, or one it does not have. */
export function checkAssigned(
  options: SubscribeOptions<unknown>,
  partitionsOf: (topic: string) => number,
): void {
  if (!Array.isArray(options.assign)) return;
  for (const { topic, partition } of options.assign as readonly TopicPartition[]) {
    if (!options.topics.includes(topic))
      throw new Error(`subscribe ${options.groupId}: assigned ${topic}/${partition} is not in topics`);
    if (!Number.isInteger(partition) || partition < 0 || partition >= partitionsOf(topic))
      throw new Error(`subscribe ${options.groupId}: ${topic} has no partition ${partition}`);
  }
}

/** The commit position after a batch: its last message's next offset. */
export function afterBatch(messages: readonly BusMessage[]): TopicPartitionOffset {
  const last = messages[messages.length - 1]!;
  return { topic: last.topic, partition: last.partition, offset: nextOffset(last.offset) };
}

/** The offset after `offset` (what to commit once `offset` is processed). */
export function nextOffset(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}

/** The port. Obtain a connected instance from `BusModule` or an adapter's constructor + `connect()`. */
export abstract class Bus {
  abstract readonly kind: 'memory' | 'kafka';

  /** Memory: replays the journal. Kafka: connects, makes sure the topics exist. */
  abstract connect(): Promise<void>;

  /** True between a successful connect and close (Kafka: while the producer is connected). */
  abstract isConnected(): boolean;

  /**
   * Resolves once the groups `connect()` started joining on its own (Kafka: the eager reply
   * listener) have their first assignment; rejects if a join failed. connect() does not wait for
   * them, so the application's other groups can join meanwhile (a new group waits out the broker's
   * initial rebalance delay, 3 s by default: one after another, a gateway's six took 15 s).
   */
  joined(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Appends to partition `partitionFor(topic, key)`; resolves once the log holds the message
   * (memory with a journal: written to the journal file; Kafka: acknowledged by all in-sync replicas).
   * Messages published in sequence with the same key are delivered in that order.
   */
  abstract publish<T>(topic: string, key: string, value: T, headers?: BusHeaders): Promise<PublishResult>;

  /** Joins a consumer group; resolves once this member has its first assignment. */
  abstract subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription>;

  /**
   * Publishes a command with a correlation id and reply-to header and waits for the reply; rejects
   * with BusTimeoutError after `timeoutMs` (its `published` tells whether the command may still
   * take effect), or with the publish's error when the log refused it. A reply arriving later is
   * dropped.
   */
  abstract request<TReply = unknown>(
    topic: string,
    key: string,
    value: unknown,
    options: RequestOptions,
  ): Promise<BusMessage<TReply>>;

  /**
   * Per partition, the offset the next published message will get (Kafka's high watermark): a
   * reader that has handled everything below it has caught up with what was published so far.
   */
  abstract endOffsets(topic: string): Promise<TopicPartitionOffset[]>;

  /** Murmur2 partition of `key` in `topic`, the same in both adapters and in Kafka's Java client. */
  abstract partitionFor(topic: string, key: string): number;

  /** Leaves every group, fails pending requests, releases files and connections. */
  abstract close(): Promise<void>;

  /** Answers a message received with `request`. */
  reply<T>(request: BusMessage, value: T, headers: BusHeaders = {}): Promise<PublishResult> {
    const correlationId = request.headers[HEADER_CORRELATION_ID];
    const replyTo = request.headers[HEADER_REPLY_TO];
    if (!correlationId || !replyTo) {
      return Promise.reject(
        new Error(`message ${request.topic}/${request.partition}@${request.offset} is no request`),
      );
    }
    return this.publish(replyTo, request.headers[HEADER_REPLY_KEY] ?? correlationId, value, {
      ...headers,
      [HEADER_CORRELATION_ID]: correlationId,
    });
  }
}
