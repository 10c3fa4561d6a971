import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { afterBatch, Bus, type BusMessage, Joining, type Subscription } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { MessageValidationError, parseMessage, TOPICS } from '@perp/contracts';
import { type Chain, MarketRegistry } from '@perp/domain';
import { MarketsProjection, snapshotPolicyFromEnv } from '@perp/infrastructure';
import { ShardSnapshotRepository } from '@perp/persistence';
import { CHAIN } from '@perp/runtime';
import { type RiskInput, RiskShard } from './shard/risk-shard';

export const RISK_GROUP = 'risk';

/** The risk shard's input: the risk-command partitions (users) the group assigns this member. */
@Injectable()
export class RiskCommandsConsumer implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('risk');
  private subscription?: Subscription;
  private readonly joining = new Joining();
  readonly shard: RiskShard;

  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketsProjection,
    registry: MarketRegistry,
    @Inject(CHAIN) chain: Chain,
    @Inject(HOT_STORE) hot: HotStore,
    @Optional() snapshots?: ShardSnapshotRepository,
  ) {
    this.shard = new RiskShard(bus, registry, chain, hot, snapshots, snapshotPolicyFromEnv('RISK'));
  }

  /**
   * Joins beside the markets projection's group (each new group waits out the broker's initial
   * rebalance delay): partitions are restored, and commands applied, once the markets are read.
   */
  onModuleInit(): void {
    this.joining.start([
      this.bus.subscribe({
        groupId: RISK_GROUP,
        topics: [TOPICS.riskCommands.name],
        batchHandler: (ms) => this.handleTurn(ms),
        onAssigned: this.markets.afterRead((partitions, sub) => this.shard.assigned(partitions, sub)),
        onRevoked: (partitions) => this.shard.revoked(partitions),
      }),
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    [this.subscription] = await this.joining.joined();
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
    this.shard.stop();
  }

  /** A batched turn: every waiting command of one partition, applied in order, one commit. */
  private async handleTurn(messages: readonly BusMessage[]): Promise<void> {
    if (!this.markets.isReady) await this.markets.ready();
    const inputs: RiskInput[] = [];
    for (const m of messages) {
      try {
        inputs.push({ message: m, command: parseMessage('riskCommands', m.value, m.inProcess) });
      } catch (e) {
        if (!(e instanceof MessageValidationError)) throw e;
        this.logger.warn(`refused malformed command ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
      }
    }
    await this.shard.handleTurn(messages[0]!.partition, inputs);
    this.subscription?.commitLater(afterBatch(messages));
  }
}
