import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { Bus, type BusMessage } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { MessageValidationError, parseMessage, TOPICS } from '@perp/contracts';
import { type Chain, MarketRegistry } from '@perp/domain';
import { MarketsProjection, ShardInput, snapshotPolicyFromEnv } from '@perp/infrastructure';
import { ShardSnapshotRepository } from '@perp/persistence';
import { CHAIN } from '@perp/runtime';
import { type RiskInput, RiskShard } from './shard/risk-shard';

export const RISK_GROUP = 'risk';

/** The risk shard's input: the risk-command partitions (users) the group assigns this member. */
@Injectable()
export class RiskCommandsConsumer implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('risk');
  private readonly input: ShardInput;
  readonly shard: RiskShard;

  constructor(
    bus: Bus,
    markets: MarketsProjection,
    registry: MarketRegistry,
    @Inject(CHAIN) chain: Chain,
    @Inject(HOT_STORE) hot: HotStore,
    @Optional() snapshots?: ShardSnapshotRepository,
  ) {
    this.shard = new RiskShard(bus, registry, chain, hot, snapshots, snapshotPolicyFromEnv('RISK'));
    this.input = new ShardInput(bus, markets, this.shard);
  }

  onModuleInit(): void {
    this.input.join(RISK_GROUP, TOPICS.riskCommands.name, (ms) => this.handleTurn(ms));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.input.joined();
  }

  onModuleDestroy(): Promise<void> {
    return this.input.close();
  }

  /** A batched turn: every waiting command of one partition, applied in order, one commit. */
  private async handleTurn(messages: readonly BusMessage[]): Promise<void> {
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
  }
}
