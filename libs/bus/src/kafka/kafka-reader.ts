import type { Kafka } from 'kafkajs';
import type Broker from 'kafkajs/src/broker';
import {
  BusClosedError,
  type BusLogger,
  type BusMessage,
  checkHandlers,
  type SubscribeOptions,
  type Subscription,
  type TopicPartition,
  type TopicPartitionOffset,
} from '../bus';
import { errorText, retryDelay } from '../logger';
import type { KafkaBusOptions } from './kafka-bus';
import { partitionList, toBusMessage, toTp, tpKey } from './kafka-subscription';

/** kafkajs's cluster (its brokers and metadata), the part a reader uses; not in its typings. */
interface ReaderCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): { partitionId: number; leader: number }[];
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(o: { nodeId: string }): Promise<Broker>;
  fetchTopicsOffset(
    topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}

/**
 * The cluster factory every kafkajs client keeps under a private symbol (its producer, consumer and
 * admin are built on one each). kafkajs has no public way to fetch without a group: its issue 373.
 */
function newCluster(kafka: Kafka): ReaderCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find(
    (s) => s.description === 'private:Kafka:createCluster',
  );
  const create = symbol && (kafka as unknown as Record<symbol, unknown>)[symbol];
  if (typeof create !== 'function')
    throw new Error('kafkajs: no cluster factory (a kafkajs version change?)');
  return (create as (o: object) => ReaderCluster)({ allowAutoTopicCreation: true });
}

interface ReaderPartition {
  /** Next offset to deliver. */
  position: bigint;
  /** Bumped by every seek: what a fetch sent before it brings back is stale. */
  epoch: number;
  attempt: number;
  /** A failed handler's partition is fetched again from here on (ms since the epoch). */
  retryAt: number;
}

const READ_COMMITTED = 1;
const MAX_BYTES = 10_485_760;
const PARTITION_MAX_BYTES = 1_048_576;

/**
 * A reader of chosen partitions without a consumer group (`SubscribeOptions.assign`): it fetches
 * each partition from its leader itself, one fetch loop per leader broker, and hands the handler
 * what came back in offset order, one handler call at a time (as a group member with concurrency 1).
 * A failed handler's partition is fetched again from the failed message after a backoff; a broker
 * error (a leader moved, a connection lost) makes every loop stop, the metadata refresh, and the
 * loops start again from their positions.
 */
export class KafkaReader implements Subscription {
  readonly groupId: string;
  failed = false;
  onClose?: () => void;
  private readonly cluster: ReaderCluster;
  private readonly parts = new Map<string, ReaderPartition>();
  private readonly maxBatch: number;
  private readonly maxWaitMs: number;
  private readonly retry: KafkaBusOptions['retry'];
  private closed = false;
  private stop = () => {};
  /** Settles at close: a retry's backoff ends there. */
  private readonly closing = new Promise<void>((resolve) => (this.stop = resolve));
  private running?: Promise<void>;
  /** Handler calls, one after another. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    kafka: Kafka,
    private readonly options: SubscribeOptions,
    config: KafkaBusOptions,
    private readonly logger: BusLogger,
  ) {
    this.groupId = options.groupId;
    this.retry = config.retry;
    this.maxBatch = checkHandlers(options);
    this.maxWaitMs = Math.max(config.consumer?.maxWaitTimeMs ?? 100, options.minFetchWaitMs ?? 0);
    this.cluster = newCluster(kafka);
  }

  /** Connects, finds the partitions and where each starts, runs onAssigned, then starts fetching. */
  async start(): Promise<void> {
    const topics = [...this.options.topics];
    const open = async () => {
      if (!this.closed) return;
      await this.cluster.disconnect().catch(() => undefined); // close() may have run meanwhile
      throw new BusClosedError();
    };
    await this.cluster.connect();
    await open();
    await this.cluster.addMultipleTargetTopics(topics);
    await open();
    const assign = this.options.assign;
    const assigned = Array.isArray(assign)
      ? [...(assign as readonly TopicPartition[])]
      : topics.flatMap((topic) =>
          this.cluster.findTopicPartitionMetadata(topic).map((p) => ({ topic, partition: p.partitionId })),
        );
    await this.resetTo(assigned, this.options.start ?? 'earliest');
    await open();
    // As a group member's: a failing listener is logged, and reading goes on.
    if (this.options.onAssigned)
      await Promise.resolve(this.options.onAssigned(assigned, this)).catch((e: unknown) =>
        this.logger.error(`onAssigned of reader ${this.groupId} failed: ${errorText(e)}`),
      );
    this.logger.log(`reader ${this.groupId}: reading [${partitionList(assigned)}]`);
    this.running = this.run();
  }

  /** Positions `tps` at their first or next-to-be-written offsets. */
  private async resetTo(tps: TopicPartition[], where: 'earliest' | 'latest'): Promise<void> {
    const byTopic = new Map<string, { partition: number }[]>();
    for (const { topic, partition } of tps)
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition }]);
    const offsets = await this.cluster.fetchTopicsOffset(
      [...byTopic].map(([topic, partitions]) => ({ topic, partitions, fromBeginning: where === 'earliest' })),
    );
    for (const t of offsets)
      for (const p of t.partitions) {
        const st = this.parts.get(tpKey(t.topic, p.partition));
        if (st) {
          st.position = BigInt(p.offset);
          st.epoch++;
        } else
          this.parts.set(tpKey(t.topic, p.partition), {
            position: BigInt(p.offset),
            epoch: 0,
            attempt: 0,
            retryAt: 0,
          });
      }
    for (const tp of tps)
      if (!this.parts.has(tpKey(tp.topic, tp.partition)))
        throw new Error(`reader ${this.groupId}: ${tp.topic}/${tp.partition} does not exist`);
  }

  private async run(): Promise<void> {
    for (let attempt = 0; !this.closed;) {
      try {
        const byLeader = new Map<string, string[]>();
        for (const k of this.parts.keys()) {
          const { topic, partition } = toTp(k);
          const leaders = this.cluster.findLeaderForPartitions(topic, [partition]);
          const leader = Object.keys(leaders)[0];
          if (leader === undefined) throw new Error(`no leader known for ${topic}/${partition}`);
          byLeader.set(leader, [...(byLeader.get(leader) ?? []), k]);
        }
        // Every loop of a plan has ended before the next plan starts: no partition is read twice.
        const plan = { stopped: false };
        const loops = await Promise.allSettled(
          [...byLeader].map(([leader, keys]) => this.fetchLoop(plan, leader, keys)),
        );
        const failure = loops.find((l) => l.status === 'rejected');
        if (failure) throw failure.reason;
        attempt = 0;
        this.failed = false;
      } catch (e) {
        if (this.closed) return;
        attempt++;
        this.failed = attempt > 5;
        const line = `reader ${this.groupId}: fetching failed (${errorText(e)}); metadata refreshed, attempt ${attempt}`;
        if (this.failed) this.logger.warn(line);
        else this.logger.debug?.(line);
        await Promise.race([sleep(retryDelay(attempt, { initialMs: 100, maxMs: 5_000 })), this.closing]);
        await this.cluster.refreshMetadata().catch(() => undefined);
      }
    }
  }

  /** Fetches `keys` from their leader until closed; a broker error stops every loop of the plan. */
  private async fetchLoop(plan: { stopped: boolean }, leader: string, keys: string[]): Promise<void> {
    try {
      while (!this.closed && !plan.stopped) {
        const now = Date.now();
        const due = keys.filter((k) => this.parts.get(k)!.retryAt <= now);
        if (due.length === 0) {
          const next = Math.min(...keys.map((k) => this.parts.get(k)!.retryAt));
          await sleep(Math.min(this.maxWaitMs, next - now));
          continue;
        }
        // Where each partition was fetched from, and in which epoch (a seek meanwhile makes it stale).
        const sent = new Map(
          due.map((k) => [k, { position: this.parts.get(k)!.position, epoch: this.parts.get(k)!.epoch }]),
        );
        const broker = await this.cluster.findBroker({ nodeId: leader });
        let response: Broker.FetchResponse;
        try {
          response = await broker.fetch({
            replicaId: -1,
            isolationLevel: READ_COMMITTED,
            maxWaitTime: this.maxWaitMs,
            minBytes: 1,
            maxBytes: MAX_BYTES,
            topics: byTopic(due).map(([topic, ks]) => ({
              topic,
              partitions: ks.map((k) => ({
                partition: toTp(k).partition,
                fetchOffset: sent.get(k)!.position.toString(),
                maxBytes: PARTITION_MAX_BYTES,
              })),
            })),
          });
        } catch (e) {
          const out = e as { name?: string; topic?: string; partition?: number };
          if (
            out.name === 'KafkaJSOffsetOutOfRange' &&
            out.topic !== undefined &&
            out.partition !== undefined
          ) {
            // Retention passed it by: a reader from the start goes on from the first offset kept.
            this.logger.warn(
              `reader ${this.groupId}: ${out.topic}/${out.partition} out of range; from the start`,
            );
            await this.resetTo([{ topic: out.topic, partition: out.partition }], 'earliest');
            continue;
          }
          throw e;
        }
        for (const t of response.responses)
          for (const part of t.partitions) {
            const k = tpKey(t.topicName, part.partition);
            const st = this.parts.get(k);
            const asSent = sent.get(k);
            if (!st || !asSent || st.epoch !== asSent.epoch || this.closed) continue; // sought meanwhile
            await this.take(t.topicName, part, st, asSent.epoch);
          }
      }
    } catch (e) {
      plan.stopped = true;
      throw e;
    }
  }

  /** Hands a partition's fetched records from its position to the handler, in chunks of maxBatch. */
  private async take(
    topic: string,
    part: Broker.FetchPartitionResponse,
    st: ReaderPartition,
    epoch: number,
  ): Promise<void> {
    const from = st.position;
    const raw = part.messages.filter((m) => BigInt(m.offset) >= from);
    if (raw.length === 0) return;
    const records = raw.filter((m) => m.isControlRecord !== true);
    for (let i = 0; i < records.length; i += this.maxBatch) {
      const chunk = records.slice(i, i + this.maxBatch);
      const ok = await this.deliver(
        topic,
        part.partition,
        chunk.map((m) => toBusMessage(topic, part.partition, m as Parameters<typeof toBusMessage>[2])),
        st,
        epoch,
      );
      if (!ok) return;
    }
    // Past the control records (transaction markers) too.
    if (st.epoch === epoch) st.position = BigInt(raw[raw.length - 1]!.offset) + 1n;
  }

  private async deliver(
    topic: string,
    partition: number,
    messages: BusMessage[],
    st: ReaderPartition,
    epoch: number,
  ): Promise<boolean> {
    const run = this.turn.then(async () => {
      if (this.closed || st.epoch !== epoch) return false;
      try {
        if (this.options.batchHandler) await this.options.batchHandler(messages, this);
        else
          for (const m of messages) {
            await this.options.handler!(m);
            st.position = BigInt(m.offset) + 1n;
          }
      } catch (e) {
        st.attempt++;
        const delay = retryDelay(st.attempt, this.retry);
        st.retryAt = Date.now() + delay;
        this.logger.warn(
          `handler failed on ${topic}/${partition}@${st.position} (attempt ${st.attempt}, retry in ${delay} ms): ${errorText(e)}`,
        );
        return false;
      }
      st.attempt = 0;
      if (st.epoch === epoch) st.position = BigInt(messages[messages.length - 1]!.offset) + 1n;
      return true;
    });
    this.turn = run.catch(() => undefined);
    return run;
  }

  assignment(): TopicPartition[] {
    return [...this.parts.keys()].map(toTp);
  }

  commit(): Promise<void> {
    return Promise.reject(this.noGroup());
  }

  commitLater(): void {
    throw this.noGroup();
  }

  committedAtAssignment(): string | undefined {
    return undefined;
  }

  seek({ topic, partition, offset }: TopicPartitionOffset): void {
    const st = this.parts.get(tpKey(topic, partition));
    if (!st) throw new Error(`seek: ${topic}/${partition} is not assigned to this reader`);
    st.position = BigInt(offset);
    st.epoch++;
    st.retryAt = 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop();
    try {
      await this.running?.catch(() => undefined);
      await this.turn;
      const held = this.assignment();
      if (this.options.onRevoked && held.length) {
        await Promise.resolve(this.options.onRevoked(held, this)).catch((e: unknown) =>
          this.logger.error(`onRevoked of reader ${this.groupId} failed: ${errorText(e)}`),
        );
      }
      await this.cluster.disconnect().catch(() => undefined);
    } finally {
      this.onClose?.();
    }
  }

  private noGroup(): Error {
    return new Error(`reader ${this.groupId} reads without a consumer group: there is nothing to commit`);
  }
}

function byTopic(keys: string[]): [string, string[]][] {
  const out = new Map<string, string[]>();
  for (const k of keys) {
    const { topic } = toTp(k);
    out.set(topic, [...(out.get(topic) ?? []), k]);
  }
  return [...out];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
