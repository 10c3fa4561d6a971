// Why this module is long: the port's calls, the producer queue that orders every publish and the join retry all work on one connection's state; the options it takes are declared here beside them.
import { randomUUID } from 'node:crypto';
import {
  type Admin,
  type Kafka,
  type Message,
  Partitioners,
  type Producer,
  type RetryOptions,
} from 'kafkajs';
import {
  Bus,
  BusClosedError,
  type BusConfig,
  type BusHeaders,
  type BusLogger,
  type BusMessage,
  checkAssigned,
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
import { busLogger, errorText, retryDelay } from '../logger';
import { KeyPartitioner } from '../partitioner';
import { PendingReplies } from '../pending-replies';
import { coalesceFetches } from './fetch-coalescing';
import { createKafka } from './kafka-client';
import { KafkaReader } from './kafka-reader';
import { KafkaSubscription, tpKey } from './kafka-subscription';
import { fetchOnlyFromServingBrokers } from './leader-fetchers';
import { stopIdleRequestChecks } from './request-queue-idle';
import type { PresenceStore } from './member-liveness';
import type { TopicConfigs } from './topic-configs';
import { ensureTopics } from './topic-provisioning';

export interface KafkaConsumerTuning {
  /** Real brokers refuse less than group.min.session.timeout.ms (6 s by default). */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  rebalanceTimeoutMs?: number;
  /**
   * The group leader waits this long before sending the assignment (default 0). The librdkafka
   * mock hands out assignments only to members whose SyncGroup arrived before the leader's and
   * refuses later ones (INVALID_REQUEST, which kafkajs does not retry: the member crashes and joins
   * again, rebalancing the whole group).
   */
  leaderSyncDelayMs?: number;
  /** Longest a fetch waits for data; also how long close() may wait for a fetch in flight. */
  maxWaitTimeMs?: number;
  /**
   * `commitLater` positions go at most once per this many ms per member (default 0: after every
   * turn, one request in flight at a time); `commit`, a hand-over and close send at once.
   */
  commitIntervalMs?: number;
  /** Partitions whose handlers may run at the same time in one member (kafkajs partitionsConsumedConcurrently). */
  concurrency?: number;
  /** One join attempt fails when its first assignment takes longer. */
  joinTimeoutMs?: number;
  /** Backoff between join attempts and their bound; default JOIN_RETRY. */
  joinRetry?: JoinRetry;
  /** Members watch each other's processes and evict a dead one at once (member-liveness.ts). */
  liveness?: { presence: PresenceStore; periodMs: number };
}

export interface KafkaBusOptions extends BusConfig {
  brokers: string[];
  clientId: string;
  consumer?: KafkaConsumerTuning;
  /**
   * Create missing topics with the configured partition counts and grow smaller ones (admin API).
   * Where that is refused (the librdkafka mock cluster) topics are auto-created by metadata requests.
   * Default true. False: topics are provisioned apart (`provisionTopics`) and connect() waits for them.
   */
  createTopics?: boolean;
  /** Settings topics must have (set on creation; an existing topic that differs is altered or reported). */
  topicConfigs?: TopicConfigs;
  /** Backoff and bound of connect()'s wait for the topics (default PROVISIONING_RETRY). */
  provisioningRetry?: RetryOptions;
  /**
   * Start joining the reply-topic listener in connect() (`joined()` resolves once it has joined)
   * instead of on the first request.
   */
  eagerReplyListener?: boolean;
  /** Most messages in one produce request. */
  maxBatch?: number;
}

/** Waits until the event loop's I/O callbacks of this turn have run (each may publish). */
const afterThisTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Queued {
  topic: string;
  message: Message & { partition: number };
  resolve: (r: PublishResult) => void;
  reject: (e: unknown) => void;
}

/**
 * A join the broker refused (a rebalance racing it, a coordinator not yet elected, the mock's late
 * SyncGroup) is tried again for about a minute: members that start together keep colliding for a
 * while, and the jitter spreads their next attempts apart.
 */
export const JOIN_RETRY: Required<JoinRetry> = { initialMs: 300, maxMs: 5_000, attempts: 16 };

export interface JoinRetry {
  initialMs?: number;
  maxMs?: number;
  attempts?: number;
}

/**
 * The log on Kafka (kafkajs). Works with Kafka 2.4+ and with librdkafka's mock cluster, so it uses
 * nothing the mock lacks: no idempotent producer, no transactions, topics may be auto-created.
 *
 * Publishing: each message carries its murmur2 partition (the shared partitioner, over the broker's
 * partition count). One produce request is in flight at a time, holding whatever queued meanwhile,
 * so publish order is log order without idempotence. The first request of a burst leaves after the
 * current turn of the event loop, so the publishes of one turn (a shard's outputs, the orders of the
 * HTTP requests that arrived together) share it: one record batch per partition, which a consumer
 * then takes in one fetch and one batched turn (the librdkafka mock serves a single record batch
 * per partition per fetch, so there it bounds what a consumer can take per round trip).
 */
export class KafkaBus extends Bus {
  readonly kind = 'kafka' as const;
  private readonly logger: BusLogger;
  private readonly partitioners = new Map<string, KeyPartitioner>();
  private readonly subscriptions = new Set<KafkaSubscription | KafkaReader>();
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
  private startupJoins: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: KafkaBusOptions) {
    super();
    this.logger = busLogger(options);
    this.instanceId = `${options.clientId}-${randomUUID()}`;
    for (const [name, count] of Object.entries(options.topics))
      this.partitioners.set(name, new KeyPartitioner(count));
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    coalesceFetches();
    stopIdleRequestChecks();
    fetchOnlyFromServingBrokers();
    this.kafka = createKafka({
      brokers: this.options.brokers,
      clientId: this.options.clientId,
      logger: this.logger,
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
      this.startupJoins = this.replyListener(this.options.replyTopic);
    }
  }

  override async joined(): Promise<void> {
    await this.startupJoins;
  }

  isConnected(): boolean {
    if (!this.connected || !this.producerUp) return false;
    for (const s of this.subscriptions) if (s.failed) return false;
    return true;
  }

  publish<T>(topic: string, key: string, value: T, headers?: BusHeaders): Promise<PublishResult> {
    return this.enqueue(topic, key, value, headers).result;
  }

  /**
   * Queues a message for the next produce request. `withdraw` takes it out of the queue while no
   * produce request holds it yet (true), so it is never sent; once handed to the broker it cannot.
   */
  private enqueue<T>(
    topic: string,
    key: string,
    value: T,
    headers?: BusHeaders,
  ): { result: Promise<PublishResult>; withdraw: () => boolean } {
    const refused = (e: unknown) => ({ result: Promise.reject(e), withdraw: () => true });
    if (!this.connected) return refused(new BusClosedError());
    const partitioner = this.partitioners.get(topic);
    if (!partitioner) return refused(new UnknownTopicError(topic));
    let payload: string;
    try {
      payload = JSON.stringify(value);
    } catch (e) {
      return refused(e);
    }
    let entry!: Queued;
    const result = new Promise<PublishResult>((resolve, reject) => {
      entry = {
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
      };
      this.queue.push(entry);
      if (!this.draining) this.draining = this.drain();
    });
    const withdraw = () => {
      const i = this.queue.indexOf(entry);
      if (i < 0) return false;
      this.queue.splice(i, 1);
      entry.reject(new Error('withdrawn before it was sent'));
      return true;
    };
    return { result, withdraw };
  }

  async subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription> {
    if (!this.connected) throw new BusClosedError();
    for (const topic of options.topics) if (!this.partitioners.has(topic)) throw new UnknownTopicError(topic);
    checkAssigned(options as SubscribeOptions, (topic) => this.partitioners.get(topic)!.partitions);
    // A join can fail on a broker's transient refusal (a rebalance racing the join, e.g. SyncGroup
    // answered INVALID_REQUEST, which kafkajs marks not retriable, so its retrier does not fit):
    // try again with a fresh member, with jittered backoff, up to the bound. A reader without a
    // group (`assign`) is started again the same way.
    const make = options.assign
      ? () => new KafkaReader(this.kafka!, options as SubscribeOptions, this.options, this.logger)
      : () =>
          new KafkaSubscription(
            this.kafka!,
            this.admin!,
            options as SubscribeOptions,
            this.options,
            this.logger,
          );
    const retry = { ...JOIN_RETRY, ...this.options.consumer?.joinRetry };
    for (let attempt = 1; ; attempt++) {
      // Closed while this waited out a backoff: a member made now would outlive the bus.
      if (!this.connected) throw new BusClosedError();
      const sub = make();
      this.subscriptions.add(sub);
      sub.onClose = () => this.subscriptions.delete(sub);
      try {
        await sub.start();
        return sub;
      } catch (e) {
        await sub.close().catch(() => undefined);
        if (e instanceof BusClosedError || !this.connected || attempt >= retry.attempts) throw e;
        const delay = Math.round(retryDelay(attempt, retry) * (0.8 + 0.4 * Math.random()));
        const what = options.assign ? `reader ${options.groupId}: start` : `group ${options.groupId}: join`;
        this.logger.log(`${what} failed (${errorText(e)}); attempt ${attempt + 1} in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
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
        const sent = this.enqueue(topic, key, value, {
          ...options.headers,
          [HEADER_CORRELATION_ID]: correlationId,
          [HEADER_REPLY_TO]: replyTopic,
          [HEADER_REPLY_KEY]: this.instanceId,
        });
        // Timed out meanwhile: do not send it late.
        if (!this.replies.publishing(correlationId, sent.withdraw)) sent.withdraw();
        await sent.result;
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
      await afterThisTurn();
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
      // Replies to this instance are keyed by its id (HEADER_REPLY_KEY): one partition, read alone.
      listening = this.subscribe({
        groupId: `${this.instanceId}.replies`,
        topics: [replyTopic],
        assign: [{ topic: replyTopic, partition: this.partitionFor(replyTopic, this.instanceId) }],
        start: 'latest',
        handler: (m) => void this.replies.deliver(m),
      });
      listening.catch(() => this.replyListeners.delete(replyTopic));
      this.replyListeners.set(replyTopic, listening);
    }
    return listening;
  }

  private async ensureTopics(): Promise<void> {
    const actual = await ensureTopics(this.admin!, this.options.topics, {
      create: this.options.createTopics ?? true,
      configs: this.options.topicConfigs,
      retry: this.options.provisioningRetry,
      logger: this.logger,
    });
    for (const [topic, configured] of Object.entries(this.options.topics)) {
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
