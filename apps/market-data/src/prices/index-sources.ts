import type { PriceEvent } from '@perp/contracts';
import {
  type Chain,
  CircuitBreaker,
  type CircuitStatus,
  type IndexSourceConfig,
  type IndexSourceInput,
  indexSourceName,
  type IndexSourceReading,
  type Market,
  SimulatedPriceWalk,
} from '@perp/domain';
import type { JsonRpcApiProvider } from 'ethers';
import { ChainlinkAggregatorReader, IndexSourceReadError } from './chainlink-aggregator';

/** One kind of index source: reads its latest price. */
export interface IndexSourceAdapter {
  /** The source's latest reading; undefined while it has none (no push yet). Rejects on failure. */
  read(now: number): Promise<IndexSourceReading | undefined>;
}

/** What the hot store shows of one source (index-source-status.ts). */
export interface IndexSourceHealth {
  name: string;
  kind: IndexSourceConfig['kind'];
  circuit: CircuitStatus;
  failures: number;
  lastError?: string;
}

/**
 * A configured source with its circuit breaker: `poll` reads it unless its circuit is open and
 * keeps the last good reading, so a failed read below the breaker's threshold leaves the source in
 * the composite as long as that reading is fresh; once the circuit opens the source is out.
 */
export class PolledIndexSource {
  private reading?: IndexSourceReading;
  private lastError?: string;
  private readonly breaker: CircuitBreaker;

  constructor(
    readonly name: string,
    readonly kind: IndexSourceConfig['kind'],
    private readonly weight: string,
    private readonly maxAgeMs: number,
    private readonly adapter: IndexSourceAdapter,
    rules: { failuresToOpen: number; coolDownMs: number },
  ) {
    this.breaker = new CircuitBreaker(rules);
  }

  /** Reads the source if its circuit allows; true when the read failed. */
  async poll(now: number): Promise<boolean> {
    if (!this.breaker.allows(now)) return false;
    try {
      const reading = await this.adapter.read(now);
      this.breaker.succeeded();
      this.lastError = undefined;
      if (reading) this.reading = reading;
      return false;
    } catch (e) {
      this.breaker.failed(now);
      this.lastError = e instanceof Error ? e.message : String(e);
      return true;
    }
  }

  input(now: number): IndexSourceInput {
    return {
      name: this.name,
      weight: this.weight,
      maxAgeMs: this.maxAgeMs,
      ...(this.reading && { reading: this.reading }),
      circuitOpen: this.breaker.status(now) === 'OPEN',
    };
  }

  health(now: number): IndexSourceHealth {
    return {
      name: this.name,
      kind: this.kind,
      circuit: this.breaker.status(now),
      failures: this.breaker.state.failures,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }
}

/** The operators' latest pushes per market, taken from the prices topic (source 'admin'). */
export class AdminPushes {
  private readonly latest = new Map<string, IndexSourceReading>();

  record(event: PriceEvent): void {
    if (event.type !== 'price.index' || event.source !== 'admin') return;
    const known = this.latest.get(event.symbol);
    if (!known || event.time >= known.time)
      this.latest.set(event.symbol, { price: event.indexPrice, time: event.time });
  }

  get(symbol: string): IndexSourceReading | undefined {
    return this.latest.get(symbol);
  }
}

export interface IndexSourceContext {
  chain: Chain;
  /** CHAIN_RPC_URL: overrides the chain's rpcUrl. */
  chainRpcUrl?: string;
  seed: number;
  pushes: AdminPushes;
  /** One provider per endpoint and chain id, shared by the sources reading through it. */
  provider(url: string, chainId: number): JsonRpcApiProvider;
}

/** The market's configured sources, ready to poll (empty without indexSources). */
export function buildIndexSources(market: Market, ctx: IndexSourceContext): PolledIndexSource[] {
  const config = market.indexSources;
  if (!config) return [];
  const rules = { failuresToOpen: config.failuresToOpen, coolDownMs: config.coolDownSeconds * 1000 };
  return config.sources.map(
    (s) =>
      new PolledIndexSource(
        indexSourceName(s),
        s.kind,
        s.weight,
        s.maxAgeSeconds * 1000,
        adapterFor(s, market, ctx),
        rules,
      ),
  );
}

function adapterFor(source: IndexSourceConfig, market: Market, ctx: IndexSourceContext): IndexSourceAdapter {
  switch (source.kind) {
    case 'admin':
      return { read: () => Promise.resolve(ctx.pushes.get(market.symbol)) };
    case 'simulated': {
      const walk =
        market.referencePrice === undefined
          ? undefined
          : new SimulatedPriceWalk({
              seed: ctx.seed,
              symbol: market.symbol,
              tickSize: market.tickSize,
              referencePrice: market.referencePrice,
            });
      return {
        read: (now) =>
          walk
            ? Promise.resolve({ price: walk.next(), time: now })
            : Promise.reject(new IndexSourceReadError('the market has no referencePrice to walk from')),
      };
    }
    case 'chainlink': {
      const url = source.rpcUrl ?? ctx.chainRpcUrl ?? ctx.chain.rpcUrl;
      if (url === undefined) {
        const error = new IndexSourceReadError(
          'no rpcUrl: set it on the source, in chain.json or CHAIN_RPC_URL',
        );
        return { read: () => Promise.reject(error) };
      }
      const chainId = source.chainId ?? ctx.chain.chainId;
      const reader = new ChainlinkAggregatorReader(ctx.provider(url, chainId), source.address, chainId);
      return { read: () => reader.read() };
    }
  }
}
