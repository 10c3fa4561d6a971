import type { Market, MarketRegistry, MarketStatus } from '@perp/domain';

/** Where a market's status came from: the engine command the engine copied it from. */
export interface MarketStateSource {
  partition: number;
  offset: string;
}

interface AppliedState {
  status: MarketStatus;
  source: MarketStateSource;
}

export type MarketStatesState = Record<string, AppliedState>;

/**
 * The markets as one risk partition's log has them: definitions from the registry (they do not
 * change once listed), statuses from the `market.state` copies this partition applied, else the
 * status the market first had. The live registry cannot serve a replay: it already holds every
 * later pause or resume, so an order taken before a pause would be refused when the partition
 * replays it after a restart (while the engine keeps it, and settles its fills later).
 */
export class PartitionMarkets {
  private readonly states = new Map<string, AppliedState>();
  /** Markets whose status here differs from the registry's: a copy per (registry object, status). */
  private readonly views = new Map<string, { of: Market; view: Market }>();

  constructor(private readonly registry: MarketRegistry) {}

  find(symbol: string): Market | undefined {
    const market = this.registry.find(symbol);
    if (!market) return undefined;
    const status =
      this.states.get(market.symbol)?.status ?? this.registry.initial(market.symbol)?.status ?? market.status;
    if (market.status === status) return market;
    const kept = this.views.get(market.symbol);
    if (kept?.of === market && kept.view.status === status) return kept.view;
    const view = { ...market, status };
    this.views.set(market.symbol, { of: market, view });
    return view;
  }

  /** Applies a copied status, unless the copy is at or below the last applied for the symbol. */
  apply(symbol: string, status: MarketStatus, source: MarketStateSource): void {
    const last = this.states.get(symbol)?.source;
    if (last && last.partition === source.partition && BigInt(source.offset) <= BigInt(last.offset)) return;
    this.states.set(symbol, { status, source });
  }

  toState(): MarketStatesState | undefined {
    return this.states.size ? Object.fromEntries(this.states) : undefined;
  }

  restore(state: MarketStatesState | undefined): void {
    for (const [symbol, applied] of Object.entries(state ?? {})) this.states.set(symbol, applied);
  }
}
