import { Injectable } from '@nestjs/common';
import { MarketRegistry, type Money, Rolling24h, type Stats24h } from '@perp/domain';

/** Rolling 24 h statistics for every market, fed with each trade the engine reports. */
@Injectable()
export class TickerBook {
  private readonly bySymbol = new Map<string, Rolling24h>();

  constructor(private readonly markets: MarketRegistry) {}

  recordTrade(symbol: string, time: number, price: Money, qty: Money): void {
    let r = this.bySymbol.get(symbol);
    if (!r) {
      r = new Rolling24h();
      this.bySymbol.set(symbol, r);
    }
    r.record(time, price, qty);
  }

  stats(symbol: string, now: number): Stats24h {
    return (this.bySymbol.get(symbol) ?? new Rolling24h()).stats(now);
  }

  symbols(): string[] {
    return this.markets.list().map((m) => m.symbol);
  }
}
