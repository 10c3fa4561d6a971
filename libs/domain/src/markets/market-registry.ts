import type { Market, MarketStatus } from './market';
import { normalizeSymbol } from '../symbols/normalize-symbol';

/**
 * The deployment's live market list. Starts from configuration; operator commands (add, pause,
 * resume, delist) change it at run time, in log order, so every process holds the same list.
 */
export class MarketRegistry {
  private readonly bySymbol = new Map<string, Market>();
  /** Each market as it first came to be (see `initial`). */
  private readonly first = new Map<string, Market>();
  /** The markets of the configuration (the others were listed at run time). */
  private readonly fromConfig = new Set<string>();

  constructor(markets: readonly Market[]) {
    for (const m of markets) {
      this.bySymbol.set(m.symbol, m);
      this.first.set(m.symbol, m);
      this.fromConfig.add(m.symbol);
    }
  }

  /** Whether the market is in the configuration (canonical symbol): it exists before any log. */
  configured(symbol: string): boolean {
    return this.fromConfig.has(symbol);
  }

  /**
   * The market as it first came to be: as configured, or for one added at run time as this process
   * first saw it (its `add` on the markets topic, read from the start). A stage replaying its log
   * takes a market's status from here and from the changes on its log, never from the live list,
   * which is already ahead of the replay. (A compacted markets topic may have dropped an added
   * market's first state: then its oldest one kept.)
   */
  initial(symbol: string): Market | undefined {
    return this.first.get(symbol) ?? this.first.get(normalizeSymbol(symbol));
  }

  list(): Market[] {
    return [...this.bySymbol.values()].sort(
      (a, b) => a.sortOrder - b.sortOrder || a.symbol.localeCompare(b.symbol),
    );
  }

  /** Any accepted alias (btc-usd, BTC/USDT ...) finds the canonical market. */
  find(symbol: string): Market | undefined {
    // A canonical symbol (the stages' lookups) is its own normal form: found without normalizing.
    return this.bySymbol.get(symbol) ?? this.bySymbol.get(normalizeSymbol(symbol));
  }

  add(market: Market): void {
    if (this.bySymbol.has(market.symbol)) throw new Error(`market ${market.symbol} already exists`);
    this.upsert(market);
  }

  /** Replaces or adds a market as a whole (the projection of the markets topic). */
  upsert(market: Market): void {
    this.bySymbol.set(market.symbol, market);
    if (!this.first.has(market.symbol)) this.first.set(market.symbol, market);
  }

  setStatus(symbol: string, status: MarketStatus): Market {
    const m = this.find(symbol);
    if (!m) throw new Error(`unknown market ${symbol}`);
    const next = { ...m, status };
    this.bySymbol.set(m.symbol, next);
    return next;
  }
}
