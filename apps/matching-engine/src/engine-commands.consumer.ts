import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { Bus, type BusMessage, HEADER_CORRELATION_ID, PartitionKeys } from '@perp/bus';
import {
  type EngineCommand,
  MessageValidationError,
  outputId,
  parseMessage,
  type Reply,
  type RiskCommand,
  TOPICS,
} from '@perp/contracts';
import { type Market, MarketRegistry } from '@perp/domain';
import { MarketsProjection, ShardInput, snapshotPolicyFromEnv } from '@perp/infrastructure';
import { ShardSnapshotRepository } from '@perp/persistence';
import { Metrics } from '@perp/runtime';
import { listingOf, MarketAdmin, MarketAdminError } from './markets/market-admin';
import type { CommandOutput } from './shard/book-commands';
import { ALREADY_APPLIED } from './shard/engine-replies';
import { EngineShard } from './shard/engine-shard';
import { riskCopies } from './shard/risk-copies';
import { sampleBooks } from './engine-metrics';

type ReplyBody = Omit<Reply, 'correlationId' | 'time'>;

export const ENGINE_GROUP = 'matching-engine';

/**
 * The engine shard's input: engine commands of the partitions the group assigns this member, in
 * order. Output ids derive from (partition, offset, index), so a replay re-emits the same ids.
 */
@Injectable()
export class EngineCommandsConsumer implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('engine');
  private readonly input: ShardInput;
  readonly shard: EngineShard;
  private readonly riskPartitions: PartitionKeys;

  constructor(
    private readonly bus: Bus,
    markets: MarketsProjection,
    private readonly marketAdmin: MarketAdmin,
    registry: MarketRegistry,
    @Optional() snapshots?: ShardSnapshotRepository,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.shard = new EngineShard(bus, registry, snapshots, snapshotPolicyFromEnv('ENGINE'));
    this.input = new ShardInput(bus, markets, this.shard);
    this.riskPartitions = new PartitionKeys(bus, 'market-state');
    if (metrics) sampleBooks(metrics, this.shard, registry);
  }

  onModuleInit(): void {
    this.input.join(ENGINE_GROUP, TOPICS.engineCommands.name, (ms) => this.handleTurn(ms));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.input.joined();
  }

  onModuleDestroy(): Promise<void> {
    return this.input.close();
  }

  /**
   * A batched turn of one partition: order commands are applied in order and all their events, the
   * risk shards' copies of the events that settle accounts and the replies published together (one
   * journal write or produce request), then one commit. Market admin commands (rare) first flush
   * what the turn produced, so market states stay in log order.
   */
  private async handleTurn(messages: readonly BusMessage[]): Promise<void> {
    const partition = messages[0]!.partition;
    await this.shard.inTurn(partition, async () => {
      let sends: Promise<unknown>[] = [];
      let applied = 0;
      const flush = async () => {
        await Promise.all(sends);
        sends = [];
        if (applied) await this.shard.turnApplied(partition, applied);
        applied = 0;
      };
      const emit = (out: CommandOutput) => {
        for (const e of out.events) {
          sends.push(this.bus.publish(TOPICS.engineEvents.name, e.symbol, e));
          for (const [user, copy] of riskCopies(e))
            sends.push(this.bus.publish(TOPICS.riskCommands.name, user, copy));
        }
        applied++;
      };
      // What the turn applied is published even when an input throws; then the error goes on.
      let failure: unknown;
      try {
        for (const m of messages) {
          let reply: ReplyBody | undefined;
          try {
            const cmd = parseMessage('engineCommands', m.value, m.inProcess);
            if (cmd.type === 'market.add' || cmd.type === 'market.status') {
              await flush();
              reply = await this.marketCommand(m, cmd, emit);
              if (!reply) continue;
              this.metrics?.engineCommandApplied(cmd.type);
            } else if (cmd.type === 'liquidation.place') {
              const out = this.shard.applyLiquidation(m, cmd);
              if (out) {
                emit(out);
                this.metrics?.engineCommandApplied(cmd.type);
              }
              reply = out ? out.reply : ALREADY_APPLIED;
            } else {
              const out = this.shard.apply(m, cmd);
              if (out) {
                emit(out);
                this.metrics?.engineCommandApplied(cmd.type);
              }
              // A replayed input's reply went out with its events before the commit.
              if (out?.replayed) continue;
              reply = out ? out.reply : ALREADY_APPLIED;
            }
          } catch (e) {
            if (e instanceof MarketAdminError)
              reply = { ok: false, error: { reason: e.reason, msg: e.message } };
            else if (e instanceof MessageValidationError) {
              this.logger.warn(
                `refused malformed command ${m.topic}/${m.partition}@${m.offset}: ${e.message}`,
              );
              reply = { ok: false, error: { reason: 'MALFORMED_COMMAND', msg: e.message } };
            } else throw e;
          }
          const correlationId = m.headers[HEADER_CORRELATION_ID];
          if (correlationId) sends.push(this.bus.reply(m, { ...reply, correlationId, time: m.timestamp }));
        }
      } catch (e) {
        failure = e;
      }
      try {
        await flush();
      } catch (e) {
        // Applied but not on the log: the books are ahead of it. Reload and replay, then retry.
        await this.shard.reload(partition);
        throw e;
      }
      if (failure !== undefined) throw failure;
    });
  }

  private async marketCommand(
    m: BusMessage,
    cmd: Extract<EngineCommand, { type: 'market.add' | 'market.status' }>,
    emit: (out: CommandOutput) => void,
  ): Promise<ReplyBody | undefined> {
    if (this.shard.committedBefore(m)) {
      // Its change, the risk copies and the answer went out before the group's commit: only the
      // book follows, as the first run left it.
      if (cmd.type === 'market.status') this.shard.apply(m, cmd);
      else {
        const listed = listingOf(cmd);
        if (listed) this.shard.listMarket(m, listed);
      }
      return undefined;
    }
    const asOfLog = this.shard.marketStatus(m.partition, cmd.symbol);
    const market = await this.marketAdmin.apply(cmd, `${m.topic}/${m.partition}/${m.offset}/0`, asOfLog);
    if (cmd.type === 'market.status') {
      // The book follows: HALT refuses new orders, CLOSE cancels every open order.
      const out = this.shard.apply(m, cmd);
      if (out) emit(out);
    } else this.shard.listMarket(m, market);
    await this.copyToRisk(m, market, cmd.time);
    return { ok: true, result: market };
  }

  /**
   * The market (its status, and its definition for a market listed at run time) into every risk
   * partition, before the answer: risk checks orders against the markets on its own log (so a
   * replay decides as the first run did), and an order sent after the operator's answer is behind
   * the change there. Risk drops a copy of an input it has applied.
   */
  private async copyToRisk(m: BusMessage, market: Market, time: number) {
    const topic = TOPICS.riskCommands.name;
    const keys = await this.riskPartitions.of(topic);
    await Promise.all(
      keys.map((key, i) => {
        const copy: RiskCommand = {
          id: outputId(m.topic, m.partition, m.offset, i),
          v: 1,
          time,
          type: 'market.state',
          symbol: market.symbol,
          status: market.status,
          source: { partition: m.partition, offset: m.offset },
          market: market as unknown as Record<string, unknown>,
        };
        return this.bus.publish(topic, key, copy);
      }),
    );
  }
}
