import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Bus, type BusMessage, nextOffset, type Subscription } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import {
  type EngineEvent,
  HOT_KEYS,
  MessageValidationError,
  parseMessage,
  outputId,
  parseOutputId,
  type RiskCommand,
  TOPICS,
} from '@perp/contracts';
import { Inject } from '@nestjs/common';

export const RISK_ROUTER_GROUP = 'risk-router';

/** A copy of an engine event for one user; `copy` numbers the copies of one event. */
export interface EngineEventCopy {
  user: string;
  copy: number;
  /** Trades: the side of the trade this copy settles. */
  liquidity?: 'MAKER' | 'TAKER';
}

/** The users an engine event concerns, one copy each (a trade: its maker, then its taker). */
export function engineEventRecipients(event: EngineEvent): EngineEventCopy[] {
  switch (event.type) {
    case 'order.accepted':
    case 'order.rejected':
    case 'order.canceled':
    case 'order.expired':
    case 'order.amended':
    case 'command.result':
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
 * concerning a user (to that user's partition, after the command's earlier events) and prices (to
 * every partition, so each shard sees marks in its own input order). Stateless: after a crash it
 * copies again from its committed offset and the shards drop what they already applied.
 */
@Injectable()
export class RiskRouter implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('risk-router');
  private subscription?: Subscription;
  private partitionKeys?: string[];

  constructor(
    private readonly bus: Bus,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      groupId: RISK_ROUTER_GROUP,
      topics: [TOPICS.engineEvents.name, TOPICS.prices.name],
      handler: (m) => this.handle(m),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  private async handle(m: BusMessage): Promise<void> {
    try {
      if (m.topic === TOPICS.engineEvents.name) await this.copyEngineEvent(m);
      else await this.copyPrice(m);
    } catch (e) {
      if (!(e instanceof MessageValidationError)) throw e;
      this.logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
    }
    await this.subscription?.commit({ topic: m.topic, partition: m.partition, offset: nextOffset(m.offset) });
  }

  private async copyEngineEvent(m: BusMessage): Promise<void> {
    const event = parseMessage('engineEvents', m.value);
    const origin = parseOutputId(event.id);
    if (!origin) {
      this.logger.warn(`skipped engine event without an input-derived id: ${event.id}`);
      return;
    }
    for (const { user, copy, liquidity } of engineEventRecipients(event)) {
      const message: RiskCommand = {
        id: `${event.id}/${copy}`,
        v: 1,
        time: event.time,
        type: 'engine.event',
        // Unique per copy: the shard dedupes copies by this place.
        source: { partition: origin.partition, offset: origin.offset, index: origin.index * 2 + copy },
        ...(liquidity ? { liquidity } : {}),
        event,
      };
      await this.bus.publish(TOPICS.riskCommands.name, user, message);
    }
  }

  private async copyPrice(m: BusMessage): Promise<void> {
    const price = parseMessage('prices', m.value);
    // Until the market-data service derives the mark from the book's premium, mark = index.
    const copy = (i: number): RiskCommand => ({
      id: outputId(m.topic, m.partition, m.offset, i),
      v: 1,
      time: price.time,
      type: 'price.mark',
      symbol: price.symbol,
      markPrice: price.indexPrice,
      indexPrice: price.indexPrice,
    });
    const keys = await this.keysForEveryPartition();
    for (let i = 0; i < keys.length; i++) await this.bus.publish(TOPICS.riskCommands.name, keys[i], copy(i));
    await this.hot.hset(HOT_KEYS.price(price.symbol), {
      markPrice: price.indexPrice,
      indexPrice: price.indexPrice,
      time: String(price.time),
    });
  }

  /** One key per risk-command partition (partition = murmur2(key) mod n, n as the log has it). */
  private async keysForEveryPartition(): Promise<string[]> {
    if (this.partitionKeys) return this.partitionKeys;
    const n = (await this.bus.endOffsets(TOPICS.riskCommands.name)).length;
    const keys: string[] = new Array<string>(n);
    let found = 0;
    for (let i = 0; found < n; i++) {
      const key = `price-broadcast-${i}`;
      const p = this.bus.partitionFor(TOPICS.riskCommands.name, key);
      if (keys[p] === undefined) {
        keys[p] = key;
        found++;
      }
    }
    this.partitionKeys = keys;
    return keys;
  }
}
