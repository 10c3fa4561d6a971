import type { MarketRegistry } from '@perp/domain';
import type { AccountSnapshot } from './account-reader';

/** Symbols the account holds a position or an open order in, in the market list's order. */
export function activeSymbols(snapshot: AccountSnapshot, markets: MarketRegistry): string[] {
  const held = new Set<string>();
  for (const p of snapshot.account.positions()) held.add(p.symbol);
  for (const o of snapshot.account.openOrders()) held.add(o.symbol);
  const listed = markets.list().map((m) => m.symbol);
  // A market delisted under a position still shows, after the listed ones.
  return [...listed.filter((s) => held.has(s)), ...[...held].filter((s) => !listed.includes(s)).sort()];
}

/** Every listed market, then any symbol the account still holds that is no longer listed. */
export function allSymbols(snapshot: AccountSnapshot, markets: MarketRegistry): string[] {
  const listed = markets.list().map((m) => m.symbol);
  const extra = activeSymbols(snapshot, markets).filter((s) => !listed.includes(s));
  return [...listed, ...extra];
}
