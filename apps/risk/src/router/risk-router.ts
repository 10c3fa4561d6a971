import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  afterBatch,
  Bus,
  type BusMessage,
  Joining,
  PartitionKeys,
  RARE_TOPIC_FETCH_WAIT_MS,
  type Subscription,
} from '@perp/bus';
import { MessageValidationError, parseMessage, outputId, type RiskCommand, TOPICS } from '@perp/contracts';

export const RISK_ROUTER_GROUP = 'risk-router';

/**
 * Copies into every risk partition, keyed by user, the inputs every shard applies in its own input
 * order: marks, funding rounds and the keeper's clock ticks. Stateless: after a crash it copies
 * again from its committed offset and the shards drop what they already applied. (The engine
 * copies the events that settle accounts, and market statuses, itself: see
 * apps/matching-engine/src/shard/risk-copies.ts. Upgrading a log that an older router was still
 * copying engine events from: docs/architecture.md.)
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
        topics: [TOPICS.prices.name, TOPICS.funding.name, TOPICS.clock.name],
        batchHandler: (ms, member) => this.handleTurn(ms, member),
        // Topics written a few times a second at most: a longer fetch wait spares the broker requests.
        minFetchWaitMs: RARE_TOPIC_FETCH_WAIT_MS,
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
    const keys = await this.partitionKeys.of(TOPICS.riskCommands.name);
    for (const m of messages) {
      try {
        if (m.topic === TOPICS.funding.name) this.copyFunding(m, keys, copies);
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
