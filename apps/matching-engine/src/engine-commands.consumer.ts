import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { Bus, type BusMessage, HEADER_CORRELATION_ID, nextOffset, type Subscription } from '@perp/bus';
import { MessageValidationError, parseMessage, type Reply, TOPICS } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { MarketsProjection, snapshotPolicyFromEnv } from '@perp/infrastructure';
import { EngineSnapshotRepository } from '@perp/persistence';
import { MarketAdmin, MarketAdminError } from './markets/market-admin';
import { EngineShard } from './shard/engine-shard';

export const ENGINE_GROUP = 'matching-engine';

/**
 * The engine shard's input: engine commands of the partitions the group assigns this member, in
 * order. Output ids derive from (partition, offset, index), so a replay re-emits the same ids.
 */
@Injectable()
export class EngineCommandsConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('engine');
  private subscription?: Subscription;
  readonly shard: EngineShard;

  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketsProjection,
    private readonly marketAdmin: MarketAdmin,
    registry: MarketRegistry,
    @Optional() snapshots?: EngineSnapshotRepository,
  ) {
    this.shard = new EngineShard(bus, registry, snapshots, snapshotPolicyFromEnv('ENGINE'));
  }

  async onApplicationBootstrap(): Promise<void> {
    // Commands are checked against the markets as of every earlier change.
    await this.markets.ready();
    this.subscription = await this.bus.subscribe({
      groupId: ENGINE_GROUP,
      topics: [TOPICS.engineCommands.name],
      handler: (m) => this.handle(m),
      onAssigned: (partitions, sub) => this.shard.assigned(partitions, sub),
      onRevoked: (partitions) => this.shard.revoked(partitions),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
    this.shard.stop();
  }

  private async handle(m: BusMessage): Promise<void> {
    const eventId = `${m.topic}/${m.partition}/${m.offset}/0`;
    let reply: Omit<Reply, 'correlationId' | 'time'>;
    try {
      const cmd = parseMessage('engineCommands', m.value);
      switch (cmd.type) {
        case 'market.add':
          reply = { ok: true, result: await this.marketAdmin.apply(cmd, eventId) };
          break;
        case 'market.status': {
          const market = await this.marketAdmin.apply(cmd, eventId);
          // The book follows: HALT refuses new orders, CLOSE cancels every open order.
          await this.shard.handle(m, cmd);
          reply = { ok: true, result: market };
          break;
        }
        default:
          reply = await this.shard.handle(m, cmd);
      }
    } catch (e) {
      if (e instanceof MarketAdminError) reply = { ok: false, error: { reason: e.reason, msg: e.message } };
      else if (e instanceof MessageValidationError) {
        this.logger.warn(`refused malformed command ${eventId}: ${e.message}`);
        reply = { ok: false, error: { reason: 'MALFORMED_COMMAND', msg: e.message } };
      } else throw e;
    }
    if (m.headers[HEADER_CORRELATION_ID])
      await this.bus.reply(m, {
        ...reply,
        correlationId: m.headers[HEADER_CORRELATION_ID],
        time: Date.now(),
      });
    await this.subscription?.commit({ topic: m.topic, partition: m.partition, offset: nextOffset(m.offset) });
  }
}
