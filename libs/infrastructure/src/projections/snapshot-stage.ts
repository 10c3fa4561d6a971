import { Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { afterBatch, type Bus, type BusMessage, Joining, type Subscription } from '@perp/bus';
import type { ProcessedOffsetRepository, ShardSnapshotRepository } from '@perp/persistence';
import { subscribeAtMark } from './resume-at-mark';

/** Snapshots kept per partition (the newest is read; one older in case it is bad). */
const SNAPSHOTS_KEPT = 2;

/**
 * A stage whose state per input partition is f(snapshot, log): each batched turn is applied to the
 * partition's state (which publishes the turn's outputs, with ids derived from their inputs), then
 * the state is stored with the consumer's mark in one transaction, then the offsets are committed.
 * A new owner (or a restart) loads the snapshot and resumes after the mark; a crash between the
 * outputs and the snapshot re-emits the same outputs, which consumers drop by id or time.
 */
export abstract class SnapshotStage<S> implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private subscription?: Subscription;
  private readonly joining = new Joining();
  private readonly states = new Map<number, S>();

  protected constructor(
    protected readonly bus: Bus,
    private readonly offsets: ProcessedOffsetRepository,
    private readonly snapshots: ShardSnapshotRepository,
    /** Consumer group, name in processed_offsets, and snapshot label. */
    private readonly name: string,
    private readonly topic: string,
    /** See SubscribeOptions.minFetchWaitMs. */
    private readonly minFetchWaitMs?: number,
  ) {
    this.logger = new Logger(name);
  }

  protected abstract emptyState(): S;
  protected abstract encode(state: S): unknown;
  protected abstract decode(json: unknown): S;
  /** Applies one turn of a partition to its state, publishing what it produces. */
  protected abstract applyTurn(state: S, messages: readonly BusMessage[]): Promise<void>;

  /** When false the stage does not subscribe (a process that does not run it). */
  protected get enabled(): boolean {
    return true;
  }

  /** Joins beside the app's other groups (each new group waits out the broker's rebalance delay). */
  onModuleInit(): void {
    if (!this.enabled) return;
    this.joining.start([
      subscribeAtMark(this.bus, {
        name: this.name,
        topics: [this.topic],
        marks: this.offsets,
        forget: (p) => this.states.delete(p),
        batchHandler: (ms, member) => this.handleTurn(ms, member),
        minFetchWaitMs: this.minFetchWaitMs,
      }),
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    [this.subscription] = await this.joining.joined();
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  async handleTurn(messages: readonly BusMessage[], member = this.subscription): Promise<void> {
    const last = messages[messages.length - 1]!;
    const state = this.states.get(last.partition) ?? (await this.load(last.partition));
    this.states.delete(last.partition);
    await this.applyTurn(state, messages);
    await this.snapshots.save(
      {
        topic: this.label,
        partition: last.partition,
        offset: last.offset,
        state: Buffer.from(JSON.stringify(this.encode(state))),
      },
      [{ consumer: this.name, topic: last.topic, partition: last.partition, offset: last.offset }],
    );
    await this.snapshots.prune(this.label, last.partition, SNAPSHOTS_KEPT);
    // Held again only once stored: a failed turn reloads from the snapshot.
    this.states.set(last.partition, state);
    member?.commitLater(afterBatch(messages));
  }

  /** The snapshots' topic column: the stage's name with its input topic. */
  private get label(): string {
    return `${this.name}@${this.topic}`;
  }

  private async load(partition: number): Promise<S> {
    const s = await this.snapshots.latest(this.label, partition);
    return s ? this.decode(JSON.parse(s.state.toString('utf8'))) : this.emptyState();
  }
}
