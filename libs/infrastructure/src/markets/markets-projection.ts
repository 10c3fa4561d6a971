import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  Bus,
  Joining,
  type PartitionsListener,
  RARE_TOPIC_FETCH_WAIT_MS,
  type Subscription,
} from '@perp/bus';
import { parseMessage, TOPICS } from '@perp/contracts';
import { MarketRegistry, parseMarket } from '@perp/domain';
import { Readiness } from '@perp/runtime';

/**
 * Keeps this process's MarketRegistry equal to the markets topic (operator changes applied by the
 * engine). Reads it from the start on every boot; the process is not ready until it has caught up.
 */
@Injectable()
export class MarketsProjection implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('markets');
  private subscription?: Subscription;
  private readonly joining = new Joining();
  private caughtUp = false;
  private failure?: Error;
  private readonly waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly registry: MarketRegistry,
    readiness: Readiness,
  ) {
    readiness.register('markets', () => this.caughtUp);
  }

  onModuleInit(): void {
    this.joining.start([this.follow()]);
    // Consumers joining beside this one wait for ready(): it fails with the join.
    this.joining.joined().catch((e: unknown) => this.fail(e instanceof Error ? e : new Error(String(e))));
  }

  async onApplicationBootstrap(): Promise<void> {
    [this.subscription] = await this.joining.joined();
  }

  /** Reads the markets topic from the start: caught up once past the end it had at boot. */
  private async follow(): Promise<Subscription> {
    const topic = TOPICS.markets.name;
    const remaining = new Map<number, bigint>();
    for (const e of await this.bus.endOffsets(topic))
      if (e.offset !== '0') remaining.set(e.partition, BigInt(e.offset));
    if (remaining.size === 0) this.markCaughtUp();
    return this.bus.subscribe({
      groupId: 'markets',
      topics: [topic],
      // Every process reads every partition for itself: no group to wait for (a new one waits out
      // the coordinator's initial rebalance delay, 3 s by default, on every start).
      assign: 'all',
      start: 'earliest',
      // A market changes rarely, and orders do not wait on this copy (the engine hands a market's
      // state to the risk partitions itself, before it answers the operator).
      minFetchWaitMs: RARE_TOPIC_FETCH_WAIT_MS,
      handler: (m) => {
        try {
          const state = parseMessage('markets', m.value, m.inProcess);
          // Re-validated here like any consumer input; derived fields (precisions, cum) are recomputed.
          this.registry.upsert(parseMarket(state.market));
        } catch (e) {
          this.logger.error(
            `skipping malformed market state at ${m.partition}@${m.offset}: ${(e as Error).message}`,
          );
        }
        const end = remaining.get(m.partition);
        if (end !== undefined && BigInt(m.offset) + 1n >= end) {
          remaining.delete(m.partition);
          if (remaining.size === 0) this.markCaughtUp();
        }
      },
    });
  }

  /** True once every market change published before boot is applied. */
  get isReady(): boolean {
    return this.caughtUp;
  }

  /**
   * A shard's `onAssigned` run once the markets are read (it restores against them): the shard's
   * group joins beside this one's instead of after it.
   */
  afterRead(listener: PartitionsListener): PartitionsListener {
    return async (partitions, subscription) => {
      await this.ready();
      await listener(partitions, subscription);
    };
  }

  /** Resolves once every market change published before boot is applied; fails if the join did. */
  ready(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  private markCaughtUp(): void {
    this.caughtUp = true;
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  private fail(e: Error): void {
    this.failure = e;
    for (const w of this.waiters.splice(0)) w.reject(e);
  }
}
