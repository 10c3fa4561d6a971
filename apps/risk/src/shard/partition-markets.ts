import {
  type Market,
  type MarketRegistry,
  type MarketStatus,
  normalizeSymbol,
  parseMarket,
} from '@perp/domain';

/** Where a market's status came from: the engine command the engine copied it from. */
export interface MarketStateSource {
  partition: number;
  offset: string;
}

interface AppliedState {
  status: MarketStatus;
  source: MarketStateSource;
  /** The definition the copy carried (copies written before they carried one have none). */
  market?: Market;
}

export type MarketStatesState = Record<string, AppliedState>;

/**
 * The markets as one risk partition's log has them: statuses from the `market.state` copies this
 * partition applied, else the status the market first had; definitions from the configuration, or
 * for a market listed at run time from the copies (it does not exist here before its first one).
 * The live registry cannot serve a replay: it already holds every later pause, resume or listing,
 * so an order taken before a pause would be refused when the partition replays it after a
 * restart (while the engine keeps it, and settles its fills later), and an order refused before a
 * listing would be taken. Nor can it serve the first run in a cluster: the process's own market
 * list may read a listing after the copy reached the partition.
 */
export class PartitionMarkets {
  private readonly states = new Map<string, AppliedState>();
  /** Markets whose status here differs from their definition's: a copy per (definition, status). */
  private readonly views = new Map<string, { of: Market; view: Market }>();

  constructor(private readonly registry: MarketRegistry) {}

  find(symbol: string): Market | undefined {
    const live = this.registry.find(symbol);
    const canonical = live?.symbol ?? normalizeSymbol(symbol);
    const applied = this.states.get(canonical);
    // A configured market exists before any log (and takes the configuration's definition).
    const market = this.registry.configured(canonical)
      ? live
      : (applied?.market ?? (applied ? live : undefined));
    if (!market) return undefined;
    const status = applied?.status ?? this.registry.initial(canonical)?.status ?? market.status;
    if (market.status === status) return market;
    const kept = this.views.get(canonical);
    if (kept?.of === market && kept.view.status === status) return kept.view;
    const view = { ...market, status };
    this.views.set(canonical, { of: market, view });
    return view;
  }

  /** Applies a copy, unless it is at or below the last applied for the symbol. */
  apply(symbol: string, status: MarketStatus, source: MarketStateSource, market?: Market): void {
    const last = this.states.get(symbol);
    if (
      last &&
      last.source.partition === source.partition &&
      BigInt(source.offset) <= BigInt(last.source.offset)
    )
      return;
    this.states.set(symbol, { status, source, market: market ?? last?.market });
  }

  toState(): MarketStatesState | undefined {
    return this.states.size ? Object.fromEntries(this.states) : undefined;
  }

  restore(state: MarketStatesState | undefined): void {
    for (const [symbol, applied] of Object.entries(state ?? {}))
      this.states.set(symbol, { ...applied, market: applied.market && parseMarket(applied.market) });
  }
}
