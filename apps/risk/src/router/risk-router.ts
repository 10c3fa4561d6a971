import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { afterBatch, Bus, type BusMessage, Joining, PartitionKeys, type Subscription } from '@perp/bus';
import {
  type EngineEvent,
  MessageValidationError,
  parseMessage,
  outputId,
  parseOutputId,
  type RiskCommand,
  TOPICS,
} from '@perp/contracts';

export const RISK_ROUTER_GROUP = 'risk-router';

/** A copy of an engine event for one user; `copy` numbers the copies of one event. */
export interface EngineEventCopy {
  user: string;
  copy: number;
  /** Trades: the side of the trade this copy settles. */
  liquidity?: 'MAKER' | 'TAKER';
}

/**
 * The users whose risk shard settles an engine event, one copy each (a trade: its maker, then its
 * taker). Not `order.accepted`: risk opened the order's record when it forwarded the command, and a
 * copy would change nothing (a journal line and a risk turn per order for nothing).
 */
export function engineEventRecipients(event: EngineEvent): EngineEventCopy[] {
  switch (event.type) {
    case 'order.rejected':
    case 'order.canceled':
    case 'order.expired':
    case 'order.amended':
    case 'command.result':
    case 'liquidation.done':
      return event.user ? [{ user: event.user, copy: 0 }] : [];
    case 'trade':
      return [
        { user: event.maker.user, copy: 0, liquidity: 'MAKER' },
        { user: event.taker.user, copy: 1, liquidity: 'TAKER' },
      ];
    default:
      return [];
  }
}

/**
 * Copies into the risk-command log, keyed by user, what the risk shards settle: engine events
 * concerning a user (to that user's partition, after the command's earlier events), marks, funding
 * rounds and the keeper's clock ticks (to every partition, so each shard sees them in its own input
 * order). Stateless: after a crash it copies again from its committed offset and the shards drop
 * what they already applied. (Market statuses the engine copies itself, before it answers.)
 */
@Injectable()
export class RiskRouter implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('risk-router');
  private subscription?: Subscription;
  private readonly joining = new Joining();
  private readonly partitionKeys: PartitionKeys;

  constructor(private readonly bus: Bus) {
    this.partitionKeys = new PartitionKeys(bus, 'price-broadcast');
  }

  /** Joins beside the app's other groups (each new group waits out the broker's rebalance delay). */
  onModuleInit(): void {
    this.joining.start([
      this.bus.subscribe({
        groupId: RISK_ROUTER_GROUP,
        topics: [TOPICS.engineEvents.name, TOPICS.prices.name, TOPICS.funding.name, TOPICS.clock.name],
        batchHandler: (ms, member) => this.handleTurn(ms, member),
      }),
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    [this.subscription] = await this.joining.joined();
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  /**
   * A batched turn of one partition: every copy it makes is published together (one journal write
   * or produce request), then one commit. (The price hash readers use is market data's.)
   */
  private async handleTurn(messages: readonly BusMessage[], member: Subscription): Promise<void> {
    const copies: [string, RiskCommand][] = [];
    const keys =
      messages[0]!.topic === TOPICS.engineEvents.name
        ? []
        : await this.partitionKeys.of(TOPICS.riskCommands.name);
    for (const m of messages) {
      try {
        if (m.topic === TOPICS.engineEvents.name) this.copyEngineEvent(m, copies);
        else if (m.topic === TOPICS.funding.name) this.copyFunding(m, keys, copies);
        else if (m.topic === TOPICS.clock.name) this.copyClockTick(m, keys, copies);
        else this.copyPrice(m, keys, copies);
      } catch (e) {
        if (!(e instanceof MessageValidationError)) throw e;
        this.logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
      }
    }
    await Promise.all(copies.map(([key, c]) => this.bus.publish(TOPICS.riskCommands.name, key, c)));
    member.commitLater(afterBatch(messages));
  }

  private copyEngineEvent(m: BusMessage, copies: [string, RiskCommand][]): void {
    const event = parseMessage('engineEvents', m.value, m.inProcess);
    const origin = parseOutputId(event.id);
    if (!origin) {
      this.logger.warn(`skipped engine event without an input-derived id: ${event.id}`);
      return;
    }
    for (const { user, copy, liquidity } of engineEventRecipients(event)) {
      const command: Extract<RiskCommand, { type: 'engine.event' }> = {
        id: `${event.id}/${copy}`,
        v: 1,
        time: event.time,
        type: 'engine.event',
        // Unique per copy: the shard dedupes copies by this place.
        source: { partition: origin.partition, offset: origin.offset, index: origin.index * 2 + copy },
        event,
      };
      if (liquidity) command.liquidity = liquidity;
      copies.push([user, command]);
    }
  }

  private copyPrice(m: BusMessage, keys: readonly string[], copies: [string, RiskCommand][]): void {
    const price = parseMessage('prices', m.value, m.inProcess);
    // Risk applies the marks market data derives; index ticks are its input, not risk's.
    if (price.type !== 'price.mark') return;
    for (let i = 0; i < keys.length; i++)
      copies.push([
        keys[i]!,
        {
          id: outputId(m.topic, m.partition, m.offset, i),
          v: 1,
          time: price.time,
          type: 'price.mark',
          symbol: price.symbol,
          markPrice: price.markPrice,
          indexPrice: price.indexPrice,
          lastPrice: price.lastPrice,
        },
      ]);
  }

  /** The keeper's clock tick, to every partition like a price: each shard expires GTD orders in its own order. */
  private copyClockTick(m: BusMessage, keys: readonly string[], copies: [string, RiskCommand][]): void {
    const tick = parseMessage('clock', m.value, m.inProcess);
    keys.forEach((key, i) =>
      copies.push([
        key,
        { id: outputId(m.topic, m.partition, m.offset, i), v: 1, time: tick.time, type: 'clock.tick' },
      ]),
    );
  }

  /** A funding round to every partition, each copy under the round's id (one round, one id). */
  private copyFunding(m: BusMessage, keys: readonly string[], copies: [string, RiskCommand][]): void {
    const f = parseMessage('funding', m.value, m.inProcess);
    for (const key of keys) copies.push([key, f]);
  }
}
