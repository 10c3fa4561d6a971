import {
  afterBatch,
  type Bus,
  type BusMessage,
  Joining,
  type Subscription,
  type TopicPartition,
} from '@perp/bus';
import type { MarketsProjection } from '../markets/markets-projection';

/** What a shard's input drives: its partitions' lifecycle (ShardPartitions, through the shard). */
export interface ShardLifecycle {
  assigned(partitions: TopicPartition[], sub: Subscription): Promise<void>;
  revoked(partitions: TopicPartition[]): Promise<void>;
  stop(): void;
}

/**
 * A shard's input (the matching engine's, risk's): its group's subscription to one command topic.
 * Joined beside the markets projection's group (each new group waits out the broker's initial
 * rebalance delay); partitions are restored, and commands applied, once the markets are read, since
 * commands are checked against the markets as of every earlier change. Each turn's offsets are
 * committed after it, those of turns that run while the group is still joining too.
 */
export class ShardInput {
  private subscription?: Subscription;
  private readonly joining = new Joining();

  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketsProjection,
    private readonly shard: ShardLifecycle,
  ) {}

  /** In onModuleInit: starts the join. `turn` gets the waiting messages of one partition, in order. */
  join(groupId: string, topic: string, turn: (messages: readonly BusMessage[]) => Promise<void>): void {
    this.joining.start([
      this.bus.subscribe({
        groupId,
        topics: [topic],
        // The member's own subscription commits: turns start before the join resolves.
        batchHandler: async (messages, member) => {
          if (!this.markets.isReady) await this.markets.ready();
          await turn(messages);
          member.commitLater(afterBatch(messages));
        },
        onAssigned: this.markets.afterRead((partitions, sub) => this.shard.assigned(partitions, sub)),
        onRevoked: (partitions) => this.shard.revoked(partitions),
      }),
    ]);
  }

  /** In onApplicationBootstrap: once the group has its first assignment. */
  async joined(): Promise<void> {
    [this.subscription] = await this.joining.joined();
  }

  /** In onModuleDestroy: leaves the group (partitions revoked and saved), then stops the shard. */
  async close(): Promise<void> {
    await this.subscription?.close();
    this.shard.stop();
  }
}
