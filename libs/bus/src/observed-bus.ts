import {
  Bus,
  type BusHeaders,
  type BusMessage,
  type PublishResult,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
  type TopicPartitionOffset,
} from './bus';

export interface ConsumerLag {
  group: string;
  topic: string;
  partition: number;
  /** Messages published and not yet handled by the group. */
  lag: number;
}

/** A partition whose handler failed on its last call (the adapter calls it again, without end). */
export interface ConsumerFailing {
  group: string;
  topic: string;
  partition: number;
  /** Seconds since the first failure with no handled message since. */
  seconds: number;
}

/**
 * What the bus tells a metrics system about its consumers, without depending on one (libs/runtime's
 * `Metrics.consumers` implements it).
 */
export interface ConsumerObserver {
  /** The recorder of one (group, topic, partition): called with the size of each handled batch. */
  partition(group: string, topic: string, partition: number): (size: number) => void;
  /** Registers the reader of every consumer's lag, which the observer calls when it needs it. */
  lag(read: () => Promise<readonly ConsumerLag[]>): void;
  /** Called each time a handler call of (group, topic, partition) fails. */
  failed?(group: string, topic: string, partition: number): void;
  /**
   * Registers the reader of the partitions failing now: a partition whose handler keeps failing
   * (a fail-stop on a divergence) waits there and every later message of it with it.
   */
  failing?(read: () => readonly ConsumerFailing[]): void;
  /** The group's last subscription here closed: its recorders are not called again. */
  forget?(group: string): void;
}

interface Position {
  group: string;
  topic: string;
  partition: number;
  record: (size: number) => void;
  /** Offset of the last message handled; undefined until one is. */
  last?: string;
  /** When the handler first failed with no success since (ms); undefined while it succeeds. */
  failingSince?: number;
}

/**
 * A Bus whose consumers report to a ConsumerObserver, the same for both adapters: the size of every
 * successful handler call, every failed one and how long a partition has been failing, and the lag
 * of each owned partition, measured when asked as the end offset minus the next offset to handle. A
 * partition's lag counts from its first handled message until it is revoked. Everything else goes
 * to the adapter unchanged.
 */
export class ObservedBus extends Bus {
  readonly kind: Bus['kind'];
  /** group -> topic -> partition -> position. */
  private readonly positions = new Map<string, Map<string, Position[]>>();
  /**
   * Subscriptions per group not closed yet: a group's positions (and the observer's series) go
   * with its last one, as groups of one short-lived reader (a replay's, per reconnect) would pile up.
   */
  private readonly open = new Map<string, number>();

  constructor(
    private readonly inner: Bus,
    private readonly observer: ConsumerObserver,
  ) {
    super();
    this.kind = inner.kind;
    observer.lag(() => this.lag());
    observer.failing?.(() => this.failing());
  }

  async subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription> {
    const { groupId, handler, batchHandler, onRevoked } = options;
    const handled = (m: BusMessage<T>, size: number) => {
      if (!this.open.has(groupId)) return; // a handler that ended after the close
      const p = this.position(groupId, m.topic, m.partition);
      p.last = m.offset;
      p.failingSince = undefined;
      p.record(size);
    };
    const failed = (m: BusMessage<T>) => {
      if (!this.open.has(groupId)) return;
      const p = this.position(groupId, m.topic, m.partition);
      p.failingSince ??= Date.now();
      this.observer.failed?.(groupId, m.topic, m.partition);
    };
    const handledOne = (m: BusMessage<T>) => handled(m, 1);
    const handledBatch = (ms: readonly BusMessage<T>[]) => handled(ms[ms.length - 1]!, ms.length);
    const failedBatch = (ms: readonly BusMessage<T>[]) => failed(ms[0]!);
    this.open.set(groupId, (this.open.get(groupId) ?? 0) + 1);
    let subscription: Subscription;
    try {
      subscription = await this.inner.subscribe<T>({
        ...options,
        handler: handler && ((m) => observe(handler, m, handledOne, failed)),
        batchHandler:
          batchHandler &&
          ((ms, sub) => observe((turn) => batchHandler(turn, sub), ms, handledBatch, failedBatch)),
        onRevoked: (partitions, subscription) => {
          const topics = this.positions.get(groupId);
          for (const tp of partitions) {
            const p = topics?.get(tp.topic)?.[tp.partition];
            if (p) p.last = p.failingSince = undefined;
          }
          return onRevoked?.(partitions, subscription);
        },
      });
    } catch (e) {
      this.closed(groupId);
      throw e;
    }
    const close = subscription.close.bind(subscription);
    let closing: Promise<void> | undefined;
    subscription.close = () => (closing ??= close().finally(() => this.closed(groupId)));
    return subscription;
  }

  private closed(group: string): void {
    const left = (this.open.get(group) ?? 1) - 1;
    if (left > 0) return void this.open.set(group, left);
    this.open.delete(group);
    this.positions.delete(group);
    this.observer.forget?.(group);
  }

  /** Lag of every partition with a handled message, one end-offset query per topic. */
  private async lag(): Promise<ConsumerLag[]> {
    const byTopic = new Map<string, Position[]>();
    for (const topics of this.positions.values()) {
      for (const [topic, partitions] of topics) {
        const handled = partitions.filter((p) => p?.last !== undefined);
        if (handled.length) byTopic.set(topic, [...(byTopic.get(topic) ?? []), ...handled]);
      }
    }
    const out: ConsumerLag[] = [];
    for (const [topic, handled] of byTopic) {
      const end = new Map((await this.inner.endOffsets(topic)).map((o) => [o.partition, BigInt(o.offset)]));
      for (const p of handled) {
        const e = end.get(p.partition);
        if (e === undefined || p.last === undefined) continue;
        const lag = e - BigInt(p.last) - 1n;
        out.push({ group: p.group, topic, partition: p.partition, lag: Number(lag > 0n ? lag : 0n) });
      }
    }
    return out;
  }

  /** Partitions whose last handler call failed, with how long they have been failing. */
  private failing(): ConsumerFailing[] {
    const now = Date.now();
    const out: ConsumerFailing[] = [];
    for (const topics of this.positions.values())
      for (const partitions of topics.values())
        for (const p of partitions) {
          if (p?.failingSince === undefined) continue;
          const { group, topic, partition } = p;
          out.push({ group, topic, partition, seconds: (now - p.failingSince) / 1000 });
        }
    return out;
  }

  private position(group: string, topic: string, partition: number): Position {
    let topics = this.positions.get(group);
    if (!topics) this.positions.set(group, (topics = new Map()));
    let partitions = topics.get(topic);
    if (!partitions) topics.set(topic, (partitions = []));
    return (partitions[partition] ??= {
      group,
      topic,
      partition,
      record: this.observer.partition(group, topic, partition),
    });
  }

  connect(): Promise<void> {
    return this.inner.connect();
  }

  isConnected(): boolean {
    return this.inner.isConnected();
  }

  override joined(): Promise<void> {
    return this.inner.joined();
  }

  publish<T>(topic: string, key: string, value: T, headers?: BusHeaders): Promise<PublishResult> {
    return this.inner.publish(topic, key, value, headers);
  }

  request<TReply = unknown>(
    topic: string,
    key: string,
    value: unknown,
    options: RequestOptions,
  ): Promise<BusMessage<TReply>> {
    return this.inner.request<TReply>(topic, key, value, options);
  }

  endOffsets(topic: string): Promise<TopicPartitionOffset[]> {
    return this.inner.endOffsets(topic);
  }

  partitionFor(topic: string, key: string): number {
    return this.inner.partitionFor(topic, key);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Runs `handle(input)`, then `ok(input)` once it succeeded or `failed(input)` once it threw or
 * rejected (the error goes on to the adapter); synchronous when the handler was.
 */
function observe<I>(
  handle: (input: I) => void | Promise<void>,
  input: I,
  ok: (input: I) => void,
  failed: (input: I) => void,
): void | Promise<void> {
  let result: void | Promise<void>;
  try {
    result = handle(input);
  } catch (e) {
    failed(input);
    throw e;
  }
  if (typeof (result as Promise<void> | undefined)?.then === 'function')
    return result!.then(
      () => ok(input),
      (e: unknown) => {
        failed(input);
        throw e;
      },
    );
  ok(input);
}
