import { randomUUID } from 'node:crypto';
import {
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type EachMessagePayload,
  type IHeaders,
  Kafka,
  type LogEntry,
  logLevel,
  type Message,
  Partitioners,
  type Producer,
} from 'kafkajs';
import {
  Bus,
  BusClosedError,
  checkHandlers,
  type BusConfig,
  type BusHeaders,
  type BusLogger,
  type BusMessage,
  HEADER_CORRELATION_ID,
  HEADER_REPLY_KEY,
  HEADER_REPLY_TO,
  type PartitionsListener,
  type PublishResult,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
  type TopicPartition,
  type TopicPartitionOffset,
  UnknownTopicError,
} from '../bus';
import { busLogger, errorText, retryDelay } from '../logger';
import { KeyPartitioner } from '../partitioner';
import { PendingReplies } from '../pending-replies';

export interface KafkaConsumerTuning {
  /** Real brokers refuse less than group.min.session.timeout.ms (6 s by default). */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  rebalanceTimeoutMs?: number;
  /** Longest a fetch waits for data; also how long close() may wait for a fetch in flight. */
  maxWaitTimeMs?: number;
  /** Partitions whose handlers may run at the same time in one member (kafkajs partitionsConsumedConcurrently). */
  concurrency?: number;
  /** subscribe() fails when the first assignment takes longer. */
  joinTimeoutMs?: number;
}

export interface KafkaBusOptions extends BusConfig {
  brokers: string[];
  clientId: string;
  consumer?: KafkaConsumerTuning;
  /**
   * Create missing topics with the configured partition counts and grow smaller ones (admin API).
   * Where that is refused (the librdkafka mock cluster) topics are auto-created by metadata requests.
   * Default true.
   */
  createTopics?: boolean;
  /** Join the reply-topic listener in connect() instead of on the first request. */
  eagerReplyListener?: boolean;
  /** Most messages in one produce request. */
  maxBatch?: number;
}

interface Queued {
  topic: string;
  message: Message & { partition: number };
  resolve: (r: PublishResult) => void;
  reject: (e: unknown) => void;
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * The log on Kafka (kafkajs). Works with Kafka 2.4+ and with librdkafka's mock cluster, so it uses
 * nothing the mock lacks: no idempotent producer, no transactions, topics may be auto-created.
 *
 * Publishing: each message carries its murmur2 partition (the shared partitioner, over the broker's
 * partition count). One produce request is in flight at a time, holding whatever queued meanwhile,
 * so publish order is log order without idempotence.
 */
const JOIN_ATTEMPTS = 5;

export class KafkaBus extends Bus {
  readonly kind = 'kafka' as const;
  private readonly logger: BusLogger;
  private readonly partitioners = new Map<string, KeyPartitioner>();
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly replies = new PendingReplies();
  private readonly replyListeners = new Map<string, Promise<unknown>>();
  private readonly instanceId: string;
  private kafka?: Kafka;
  private admin?: Admin;
  private producer?: Producer;
  private connected = false;
  private producerUp = false;
  private queue: Queued[] = [];
  private draining?: Promise<void>;

  constructor(private readonly options: KafkaBusOptions) {
    super();
    this.logger = busLogger(options);
    this.instanceId = `${options.clientId}-${randomUUID()}`;
    for (const [name, count] of Object.entries(options.topics))
      this.partitioners.set(name, new KeyPartitioner(count));
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    const logger = this.logger;
    this.kafka = new Kafka({
      clientId: this.options.clientId,
      brokers: this.options.brokers,
      connectionTimeout: 3_000,
      retry: { initialRetryTime: 100, retries: 8 },
      // kafkajs logs every rebalance and reconnect as warn/info: only its errors reach our log.
      logLevel: logLevel.WARN,
      logCreator:
        () =>
        ({ level, label, log }: LogEntry) => {
          const line = `kafkajs ${label} ${log.message}${log.error ? `: ${String(log.error)}` : ''}`;
          if (level === logLevel.ERROR) logger.error(line);
          else logger.debug?.(line);
        },
    });
    this.admin = this.kafka.admin();
    await this.admin.connect();
    await this.ensureTopics();
    this.producer = this.kafka.producer({
      allowAutoTopicCreation: true,
      idempotent: false,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.producer.on(this.producer.events.CONNECT, () => (this.producerUp = true));
    this.producer.on(this.producer.events.DISCONNECT, () => (this.producerUp = false));
    await this.producer.connect();
    this.producerUp = true;
    this.connected = true;
    if (this.options.eagerReplyListener && this.options.replyTopic) {
      await this.replyListener(this.options.replyTopic);
    }
  }

  isConnected(): boolean {
    if (!this.connected || !this.producerUp) return false;
    for (const s of this.subscriptions) if (s.failed) return false;
    return true;
  }

  publish<T>(topic: string, key: string, value: T, headers?: BusHeaders): Promise<PublishResult> {
    if (!this.connected) return Promise.reject(new BusClosedError());
    const partitioner = this.partitioners.get(topic);
    if (!partitioner) return Promise.reject(new UnknownTopicError(topic));
    let payload: string;
    try {
      payload = JSON.stringify(value);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<PublishResult>((resolve, reject) => {
      this.queue.push({
        topic,
        message: {
          key,
          value: payload,
          partition: partitioner.partition(key),
          headers,
          timestamp: String(Date.now()),
        },
        resolve,
        reject,
      });
      if (!this.draining) this.draining = this.drain();
    });
  }

  async subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription> {
    if (!this.connected) throw new BusClosedError();
    for (const topic of options.topics) if (!this.partitioners.has(topic)) throw new UnknownTopicError(topic);
    // A join can fail on a broker's transient refusal (a rebalance racing the join, e.g. SyncGroup
    // answered INVALID_REQUEST): retry it with a fresh member a few times before giving up.
    for (let attempt = 1; ; attempt++) {
      const sub = new KafkaSubscription(
        this.kafka!,
        this.admin!,
        options as SubscribeOptions,
        this.options,
        this.logger,
      );
      this.subscriptions.add(sub);
      sub.onClose = () => this.subscriptions.delete(sub);
      try {
        await sub.start();
        return sub;
      } catch (e) {
        await sub.close().catch(() => undefined);
        if (e instanceof BusClosedError || !this.connected || attempt >= JOIN_ATTEMPTS) throw e;
        this.logger.warn(`group ${options.groupId}: join failed (${errorText(e)}); retrying (${attempt})`);
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  }

  request<TReply = unknown>(
    topic: string,
    key: string,
    value: unknown,
    options: RequestOptions,
  ): Promise<BusMessage<TReply>> {
    const replyTopic = options.replyTopic ?? this.options.replyTopic;
    if (!replyTopic)
      return Promise.reject(new Error('request: no reply topic (options.replyTopic or the bus replyTopic)'));
    if (!this.partitioners.has(replyTopic)) return Promise.reject(new UnknownTopicError(replyTopic));
    const correlationId = randomUUID();
    const reply = this.replies.wait<TReply>(correlationId, options.timeoutMs, `${topic} request`);
    void (async () => {
      try {
        // The listener is positioned before the request goes out, so the reply cannot slip past it.
        await this.replyListener(replyTopic);
        if (!this.replies.has(correlationId)) return; // timed out meanwhile: do not send it late
        await this.publish(topic, key, value, {
          ...options.headers,
          [HEADER_CORRELATION_ID]: correlationId,
          [HEADER_REPLY_TO]: replyTopic,
          [HEADER_REPLY_KEY]: this.instanceId,
        });
      } catch (e) {
        this.replies.fail(correlationId, e as Error);
      }
    })();
    return reply;
  }

  async endOffsets(topic: string): Promise<TopicPartitionOffset[]> {
    if (!this.connected) throw new BusClosedError();
    if (!this.partitioners.has(topic)) throw new UnknownTopicError(topic);
    const offsets = await this.admin!.fetchTopicOffsets(topic);
    return offsets
      .map((o) => ({ topic, partition: o.partition, offset: o.high }))
      .sort((a, b) => a.partition - b.partition);
  }

  partitionFor(topic: string, key: string): number {
    const p = this.partitioners.get(topic);
    if (!p) throw new UnknownTopicError(topic);
    return p.partition(key);
  }

  async close(): Promise<void> {
    if (!this.connected) return;
    this.connected = false;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.replies.failAll(new BusClosedError());
    await this.draining;
    for (const q of this.queue.splice(0)) q.reject(new BusClosedError());
    await this.producer?.disconnect();
    await this.admin?.disconnect();
  }

  /** One produce request at a time: ordering without an idempotent producer. */
  private async drain(): Promise<void> {
    const max = this.options.maxBatch ?? 10_000;
    try {
      while (this.queue.length) {
        const batch = this.queue.length <= max ? this.queue : this.queue.slice(0, max);
        this.queue = this.queue.length <= max ? [] : this.queue.slice(max);
        const byTopic = new Map<string, Message[]>();
        for (const q of batch) {
          let list = byTopic.get(q.topic);
          if (!list) byTopic.set(q.topic, (list = []));
          list.push(q.message);
        }
        try {
          const acks = await this.producer!.sendBatch({
            acks: -1,
            topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
          });
          // kafkajs keeps each partition's messages in order in one record batch: offset = base + index.
          const next = new Map<string, bigint>();
          for (const a of acks)
            next.set(tpKey(a.topicName, a.partition), BigInt(a.baseOffset ?? a.offset ?? '-1'));
          for (const q of batch) {
            const k = tpKey(q.topic, q.message.partition);
            const offset = next.get(k);
            if (offset === undefined || offset < 0n) {
              q.reject(new Error(`no produce acknowledgement for ${q.topic}/${q.message.partition}`));
              continue;
            }
            next.set(k, offset + 1n);
            q.resolve({ topic: q.topic, partition: q.message.partition, offset: offset.toString() });
          }
        } catch (e) {
          for (const q of batch) q.reject(e);
        }
      }
    } finally {
      this.draining = undefined;
    }
  }

  private replyListener(replyTopic: string): Promise<unknown> {
    let listening = this.replyListeners.get(replyTopic);
    if (!listening) {
      listening = this.subscribe({
        groupId: `${this.instanceId}.replies`,
        topics: [replyTopic],
        start: 'latest',
        handler: (m) => void this.replies.deliver(m),
      });
      listening.catch(() => this.replyListeners.delete(replyTopic));
      this.replyListeners.set(replyTopic, listening);
    }
    return listening;
  }

  private async ensureTopics(): Promise<void> {
    const admin = this.admin!;
    const wanted = Object.entries(this.options.topics);
    if (!wanted.length) return;
    const create = this.options.createTopics ?? true;
    if (create) {
      try {
        await admin.createTopics({
          topics: wanted.map(([topic, numPartitions]) => ({ topic, numPartitions })),
          waitForLeaders: true,
        });
      } catch (e) {
        this.logger.debug?.(`createTopics refused (${errorText(e)}): relying on auto-creation`);
      }
    }
    const counts = async () => {
      const md = await admin.fetchTopicMetadata({ topics: wanted.map(([t]) => t) });
      return new Map(md.topics.map((t) => [t.name, t.partitions.length]));
    };
    let actual = await counts();
    const short = wanted.filter(([t, n]) => (actual.get(t) ?? 0) < n);
    if (create && short.length) {
      try {
        await admin.createPartitions({ topicPartitions: short.map(([topic, count]) => ({ topic, count })) });
        actual = await counts();
      } catch (e) {
        this.logger.debug?.(`createPartitions refused: ${errorText(e)}`);
      }
    }
    for (const [topic, configured] of wanted) {
      const n = actual.get(topic);
      if (!n) throw new Error(`kafka: topic ${topic} has no partitions`);
      if (n !== configured) {
        // Java clients hash over the broker's count; so must we, or keys would land elsewhere.
        this.logger.warn(
          `kafka: topic ${topic} has ${n} partitions, ${configured} configured: partitioning by ${n}`,
        );
        this.partitioners.set(topic, new KeyPartitioner(n));
      }
    }
  }
}

interface PartitionState {
  /** Next offset to deliver; undefined until the first delivery or seek. */
  position?: bigint;
  /** Bumped by every seek: a message fetched before it is stale. */
  epoch: number;
  attempt: number;
}

/** One kafkajs consumer: a member of `groupId`. */
class KafkaSubscription implements Subscription {
  readonly groupId: string;
  failed = false;
  onClose?: () => void;
  private readonly consumer: Consumer;
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

  constructor(
    kafka: Kafka,
    private readonly admin: Admin,
    private readonly options: SubscribeOptions,
    private readonly config: KafkaBusOptions,
    private readonly logger: BusLogger,
  ) {
    this.groupId = options.groupId;
    this.maxBatch = checkHandlers(options);
    const t = config.consumer ?? {};
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: t.sessionTimeoutMs ?? 10_000,
      heartbeatInterval: t.heartbeatIntervalMs ?? 1_000,
      rebalanceTimeout: t.rebalanceTimeoutMs ?? 10_000,
      maxWaitTimeInMs: t.maxWaitTimeMs ?? 100,
      allowAutoTopicCreation: true,
    });
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
      await this.consumer.connect();
      open();
      await this.consumer.subscribe({ topics, fromBeginning: this.options.start !== 'latest' });
      open();
      this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) =>
        this.onJoin(payload.memberAssignment),
      );
      this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
        this.logger.error(
          `group ${this.groupId} consumer crashed (restart: ${payload.restart}): ${errorText(payload.error)}`,
        );
        if (!payload.restart) {
          this.failed = true;
          this.settleJoin(payload.error);
        }
      });
      await this.consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: this.config.consumer?.concurrency ?? 1,
        ...(this.options.batchHandler
          ? { eachBatch: (p: EachBatchPayload) => this.onBatch(p) }
          : { eachMessage: (p: EachMessagePayload) => this.onMessage(p) }),
      });
      await joined;
    } finally {
      clearTimeout(timer);
    }
  }

  assignment(): TopicPartition[] {
    return [...this.parts.keys()].map(toTp);
  }

  async commit(offsets: TopicPartitionOffset | readonly TopicPartitionOffset[]): Promise<void> {
    const list = Array.isArray(offsets) ? offsets : [offsets as TopicPartitionOffset];
    await this.consumer.commitOffsets(
      list.map(({ topic, partition, offset }) => ({ topic, partition, offset })),
    );
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
    const lost = this.assignment();
    this.parts.clear();
    await this.notify(this.options.onRevoked, lost, 'onRevoked');
    try {
      await this.consumer.disconnect();
    } finally {
      this.onClose?.();
    }
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
    const revoked = [...this.parts.keys()].filter((k) => !next.has(k));
    const gained = [...next].filter((k) => !this.parts.has(k));
    for (const k of revoked) {
      this.parts.delete(k);
      clearTimeout(this.resumeTimers.get(k));
      this.resumeTimers.delete(k);
    }
    await this.notify(this.options.onRevoked, revoked.map(toTp), 'onRevoked');
    for (const k of gained) this.parts.set(k, { epoch: 0, attempt: 0 });
    if (first && this.latest && gained.length) await this.startAtLatest(gained);
    await this.notify(this.options.onAssigned, gained.map(toTp), 'onAssigned');
    if (first) this.settleJoin();
  }

  /** Partitions the group never committed start at the end recorded before joining. */
  private async startAtLatest(gained: string[]): Promise<void> {
    const topics = [...new Set(gained.map((k) => toTp(k).topic))];
    const committed = new Map<string, string>();
    for (const t of await this.admin.fetchOffsets({ groupId: this.groupId, topics })) {
      for (const p of t.partitions) committed.set(tpKey(t.topic, p.partition), p.offset);
    }
    for (const k of gained) {
      const end = this.latest!.get(k);
      const c = committed.get(k);
      if (end !== undefined && (c === undefined || BigInt(c) < 0n)) this.seek({ ...toTp(k), offset: end });
    }
  }

  private async onMessage({ topic, partition, message }: EachMessagePayload): Promise<void> {
    const key = tpKey(topic, partition);
    const before = this.parts.get(key);
    const epoch = before?.epoch ?? 0;
    await this.assigning; // onAssigned (and its seeks) before any message of the new assignment
    const st = this.parts.get(key);
    if (this.closed || !st || (before && before !== st) || st.epoch !== epoch) return; // stale: kafkajs refetches
    const offset = BigInt(message.offset);
    if (st.position !== undefined && offset < st.position) return; // delivered before a rebalance
    const run = this.deliver(topic, partition, message, st, offset, epoch);
    this.inflight = run;
    await run;
  }

  /** Batched turns: the fetched batch, from the partition's position, in chunks of `maxBatch`. */
  private async onBatch({ batch }: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    const key = tpKey(topic, partition);
    const before = this.parts.get(key);
    const epoch = before?.epoch ?? 0;
    await this.assigning;
    const st = this.parts.get(key);
    if (this.closed || !st || (before && before !== st) || st.epoch !== epoch) return;
    const from = st.position;
    const fresh =
      from === undefined ? batch.messages : batch.messages.filter((m) => BigInt(m.offset) >= from);
    for (let i = 0; i < fresh.length; i += this.maxBatch) {
      const chunk = fresh.slice(i, i + this.maxBatch);
      const last = BigInt(chunk[chunk.length - 1]!.offset);
      const run = this.deliver(topic, partition, chunk, st, last, epoch);
      this.inflight = run;
      if (!(await run) || this.closed || st.epoch !== epoch) return;
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
    const decode = (message: EachMessagePayload['message']): BusMessage => ({
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? '',
      value: message.value ? JSON.parse(message.value.toString('utf8')) : null,
      headers: decodeHeaders(message.headers),
      timestamp: Number(message.timestamp),
    });
    const list = Array.isArray(messages) ? messages : undefined;
    const message = list ? list[0]! : (messages as EachMessagePayload['message']);
    try {
      if (list) await this.options.batchHandler!(list.map(decode));
      else await this.options.handler!(decode(message));
    } catch (e) {
      if (this.closed || st.epoch !== epoch) return false;
      // Redeliver from this message after a backoff: pause the partition and seek back to it.
      st.attempt++;
      const delay = retryDelay(st.attempt, this.config.retry);
      this.logger.warn(
        `handler failed on ${topic}/${partition}@${message.offset} (attempt ${st.attempt}, retry in ${delay} ms): ${errorText(e)}`,
      );
      const key = tpKey(topic, partition);
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

function toTp(k: string): TopicPartition {
  const [topic, partition] = k.split('\u0000');
  return { topic: topic!, partition: Number(partition) };
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
