import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Bus, RARE_TOPIC_FETCH_WAIT_MS, type Subscription } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import {
  type IndexSourceStatus,
  MessageValidationError,
  parseMessage,
  type PriceEvent,
  TOPICS,
} from '@perp/contracts';
import {
  type Chain,
  composeIndexPrice,
  type IndexComposite,
  indexCompositeDescription,
  type Market,
  MarketRegistry,
} from '@perp/domain';
import { APP_CONFIG, type AppConfig, CHAIN } from '@perp/runtime';
import type { JsonRpcProvider } from 'ethers';
import { jsonRpcProvider } from './chainlink-aggregator';
import { indexSourceStatusTtlMs, writeIndexSourceStatus } from './index-source-status';
import { AdminPushes, buildIndexSources, type PolledIndexSource } from './index-sources';

/** Consumer group reading operator pushes for the `admin` sources. */
export const INDEX_SOURCE_ADMIN_GROUP = 'index-source-admin';
/** A JSON-RPC request that has not answered by then is a failed read. */
export const INDEX_RPC_TIMEOUT_MS = 5000;

/** Deterministic id of a composite price: one per market and poll time. */
export const compositePriceId = (symbol: string, time: number): string => `index/${symbol}/${time}`;

interface MarketSources {
  /** What the sources were built from: rebuilt when the market's configuration changes. */
  key: string;
  description: string;
  sources: PolledIndexSource[];
  available?: boolean;
}

/**
 * The composite index (PRICE_SOURCE=composite; otherwise it does nothing). Every
 * PRICE_FEED_INTERVAL_MS it polls the configured sources of each TRADING market with
 * `indexSources` (chain.json), each behind its circuit breaker, composes them (libs/domain
 * composeIndexPrice: weighted median of fresh sources, staleness and deviation guards) and
 * publishes one `price.index` per market whose price is available, `source` = the composite's
 * description. A market whose price is unavailable gets no event (logged once when it becomes so).
 * After every poll the market's state is written to the hot store (index-source-status.ts).
 *
 * `admin` sources read operator pushes from the prices topic, from the moment the feed starts:
 * a push made before a restart is not seen. The push itself is also an index event (risk applies
 * it at once); the composite follows at the next poll.
 */
@Injectable()
export class IndexSourceFeed implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('index-sources');
  /** Operator pushes seen so far (read by the `admin` sources). */
  readonly pushes = new AdminPushes();
  private readonly markets = new Map<string, MarketSources>();
  private readonly providers = new Map<string, JsonRpcProvider>();
  private readonly unconfigured = new Set<string>();
  private subscription?: Subscription;
  private timer?: ReturnType<typeof setInterval>;
  private inFlight?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHAIN) private readonly chain: Chain,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly bus: Bus,
    private readonly registry: MarketRegistry,
  ) {}

  get enabled(): boolean {
    return this.config.PRICE_SOURCE === 'composite';
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    this.subscription = await this.bus.subscribe({
      groupId: INDEX_SOURCE_ADMIN_GROUP,
      topics: [TOPICS.prices.name],
      start: 'latest',
      minFetchWaitMs: RARE_TOPIC_FETCH_WAIT_MS,
      handler: (m) => {
        try {
          this.pushes.record(parseMessage('prices', m.value, m.inProcess) as PriceEvent);
        } catch (e) {
          if (!(e instanceof MessageValidationError)) throw e;
        }
      },
    });
    this.logger.log(`composite index prices every ${this.config.PRICE_FEED_INTERVAL_MS} ms`);
    await this.poll(Date.now());
    this.timer = setInterval(() => this.fire(), this.config.PRICE_FEED_INTERVAL_MS);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
    await this.subscription?.close();
    for (const p of this.providers.values()) p.destroy();
    this.providers.clear();
  }

  /** One interval: polls unless the previous poll is still running (a slow endpoint). */
  private fire(): void {
    if (this.inFlight) return;
    this.inFlight = this.poll(Date.now())
      .catch((e: unknown) => this.logger.error(`index poll failed: ${(e as Error).message}`))
      .finally(() => {
        this.inFlight = undefined;
      });
  }

  /** Reads every source of every TRADING market at `now`, then writes and publishes per market. */
  async poll(now: number): Promise<void> {
    const markets = this.registry.list().filter((m) => m.status === 'TRADING' && this.configured(m));
    const polled = await Promise.all(
      markets.map(async (market) => {
        const entry = this.sourcesOf(market);
        const failed = await Promise.all(entry.sources.map((s) => s.poll(now)));
        failed.forEach((f, i) => f && this.reportFailure(market.symbol, entry.sources[i]!, now));
        const composite = composeIndexPrice(
          entry.sources.map((s) => s.input(now)),
          { now, maxDeviationPercent: market.indexSources!.maxDeviationPercent },
        );
        return { market, entry, composite };
      }),
    );
    const ttlMs = indexSourceStatusTtlMs(this.config.PRICE_FEED_INTERVAL_MS);
    for (const { market, entry, composite } of polled) {
      await writeIndexSourceStatus(this.hot, statusOf(market.symbol, now, entry, composite), ttlMs);
      this.reportAvailability(market.symbol, entry, composite);
      if (composite.status !== 'AVAILABLE') continue;
      const event: PriceEvent = {
        id: compositePriceId(market.symbol, now),
        v: 1,
        time: now,
        type: 'price.index',
        symbol: market.symbol,
        indexPrice: composite.price,
        source: entry.description,
      };
      await this.bus.publish(TOPICS.prices.name, market.symbol, event);
    }
  }

  private configured(market: Market): boolean {
    if (market.indexSources) return true;
    if (!this.unconfigured.has(market.symbol)) {
      this.unconfigured.add(market.symbol);
      this.logger.log(`${market.symbol} has no indexSources: no composite index for it`);
    }
    return false;
  }

  private sourcesOf(market: Market): MarketSources {
    const key = JSON.stringify([market.indexSources, market.tickSize, market.referencePrice]);
    const known = this.markets.get(market.symbol);
    if (known?.key === key) return known;
    const entry: MarketSources = {
      key,
      description: indexCompositeDescription(market.indexSources!),
      sources: buildIndexSources(market, {
        chain: this.chain,
        chainRpcUrl: this.config.CHAIN_RPC_URL,
        seed: this.config.PRICE_FEED_SEED,
        pushes: this.pushes,
        provider: (url, chainId) => this.provider(url, chainId),
      }),
    };
    this.markets.set(market.symbol, entry);
    return entry;
  }

  private provider(url: string, chainId: number): JsonRpcProvider {
    const key = `${chainId} ${url}`;
    let p = this.providers.get(key);
    if (!p) this.providers.set(key, (p = jsonRpcProvider(url, chainId, INDEX_RPC_TIMEOUT_MS)));
    return p;
  }

  /** A warning for the first failure of a run and when the circuit opens, not for every poll. */
  private reportFailure(symbol: string, source: PolledIndexSource, now: number): void {
    const h = source.health(now);
    if (h.failures === 1 || h.circuit === 'OPEN')
      this.logger.warn(`${symbol} ${h.name}: ${h.lastError} (circuit ${h.circuit}, ${h.failures} failures)`);
  }

  /** Info once per change of availability (the first poll counts as a change when unavailable). */
  private reportAvailability(symbol: string, entry: MarketSources, composite: IndexComposite): void {
    const available = composite.status === 'AVAILABLE';
    if (entry.available === available || (entry.available === undefined && available)) {
      entry.available = available;
      return;
    }
    entry.available = available;
    if (composite.status === 'AVAILABLE') this.logger.log(`${symbol} index price available again`);
    else {
      const states = composite.sources.map((s) => `${s.name} ${s.state}`).join(', ');
      this.logger.log(
        `${symbol} index price unavailable (${composite.reason}): ${states}; publishing nothing`,
      );
    }
  }
}

function statusOf(
  symbol: string,
  time: number,
  entry: MarketSources,
  composite: IndexComposite,
): IndexSourceStatus {
  const sources = composite.sources.map((verdict, i) => {
    const { name, kind, circuit, failures, lastError } = entry.sources[i]!.health(time);
    return { ...verdict, name, kind, circuit, failures, ...(lastError !== undefined && { lastError }) };
  });
  const common = { symbol, time, description: entry.description, sources };
  return composite.status === 'AVAILABLE'
    ? { status: 'AVAILABLE', price: composite.price, ...common }
    : { status: 'UNAVAILABLE', reason: composite.reason, ...common };
}
