import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Bus } from '@perp/bus';
import { type PriceEvent, TOPICS } from '@perp/contracts';
import { type Market, MarketRegistry, SimulatedPriceWalk } from '@perp/domain';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';

/** The `source` of the simulated feed's price events. */
export const SIMULATED_PRICE_SOURCE = 'simulated';

/** Deterministic event id of a simulated price: the same seed and tick give the same id and price. */
export const simulatedPriceId = (symbol: string, tick: number): string =>
  `${SIMULATED_PRICE_SOURCE}/${symbol}/${tick}`;

/**
 * The embedded demo's index-price source (PRICE_SOURCE=simulated; otherwise it does nothing and
 * prices come only from operator pushes). On bootstrap it publishes tick 0 (each market's
 * reference price), then one `price.index` per TRADING market every PRICE_FEED_INTERVAL_MS on the
 * prices topic, keyed by symbol. Each market walks its own seeded random walk (libs/domain
 * SimulatedPriceWalk); the price at tick n depends only on PRICE_FEED_SEED, the market and n, so a
 * market resumed or added later joins the walk where tick n has it. Markets without a
 * referencePrice are skipped. The tick count restarts at 0 with the process.
 */
@Injectable()
export class SimulatedPriceFeed implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('price-feed');
  private readonly walks = new Map<string, SimulatedPriceWalk>();
  private readonly warned = new Set<string>();
  private timer?: ReturnType<typeof setInterval>;
  private inFlight?: Promise<void>;
  private nextTick = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
  ) {}

  get enabled(): boolean {
    return this.config.PRICE_SOURCE === 'simulated';
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    const interval = this.config.PRICE_FEED_INTERVAL_MS;
    this.logger.log(`simulated index prices every ${interval} ms, seed ${this.config.PRICE_FEED_SEED}`);
    await this.publishTick();
    this.timer = setInterval(() => this.fire(), interval);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  /** One interval: publishes the next tick unless the previous one is still being published. */
  private fire(): void {
    if (this.inFlight) return;
    this.inFlight = this.publishTick()
      .catch((e: unknown) => this.logger.error(`simulated price tick failed: ${(e as Error).message}`))
      .finally(() => {
        this.inFlight = undefined;
      });
  }

  /** Publishes tick `nextTick` for every TRADING market, then advances the tick. */
  async publishTick(): Promise<void> {
    const tick = this.nextTick;
    for (const market of this.markets.list()) {
      if (market.status !== 'TRADING') continue;
      const walk = this.walkFor(market);
      if (!walk) continue;
      const event: PriceEvent = {
        id: simulatedPriceId(market.symbol, tick),
        v: 1,
        time: Date.now(),
        type: 'price.index',
        symbol: market.symbol,
        indexPrice: walk.advanceTo(tick),
        source: SIMULATED_PRICE_SOURCE,
      };
      await this.bus.publish(TOPICS.prices.name, market.symbol, event);
    }
    this.nextTick = tick + 1;
  }

  private walkFor(market: Market): SimulatedPriceWalk | undefined {
    if (market.referencePrice === undefined) {
      if (!this.warned.has(market.symbol)) {
        this.warned.add(market.symbol);
        this.logger.warn(`${market.symbol} has no referencePrice: no simulated prices for it`);
      }
      return undefined;
    }
    let walk = this.walks.get(market.symbol);
    if (!walk || walk.tickSize !== market.tickSize) {
      walk = new SimulatedPriceWalk({
        seed: this.config.PRICE_FEED_SEED,
        symbol: market.symbol,
        tickSize: market.tickSize,
        referencePrice: market.referencePrice,
      });
      this.walks.set(market.symbol, walk);
    }
    return walk;
  }
}
