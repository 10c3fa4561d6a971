import type { Market, MarketStatus } from './market';
import { normalizeSymbol } from '../symbols/normalize-symbol';

/**
 * The deployment's live market list. Starts from configuration; operator commands (add, pause,
 * resume, delist) change it at run time, in log order, so every process holds the same list.
 */
export class MarketRegistry {
  private readonly bySymbol = new Map<string, Market>();

  constructor(markets: readonly Market[]) {
    for (const m of markets) this.bySymbol.set(m.symbol, m);
  }

  list(): Market[] {
    return [...this.bySymbol.values()].sort(
      (a, b) => a.sortOrder - b.sortOrder || a.symbol.localeCompare(b.symbol),
    );
  }

  /** Any accepted alias (btc-usd, BTC/USDT ...) finds the canonical market. */
  find(symbol: string): Market | undefined {
    return this.bySymbol.get(normalizeSymbol(symbol));
  }

  add(market: Market): void {
    if (this.bySymbol.has(market.symbol)) throw new Error(`market ${market.symbol} already exists`);
    this.bySymbol.set(market.symbol, market);
  }

  /** Replaces or adds a market as a whole (the projection of the markets topic). */
  upsert(market: Market): void {
    this.bySymbol.set(market.symbol, market);
  }

  setStatus(symbol: string, status: MarketStatus): Market {
    const m = this.find(symbol);
    if (!m) throw new Error(`unknown market ${symbol}`);
    const next = { ...m, status };
    this.bySymbol.set(m.symbol, next);
    return next;
  }
}
