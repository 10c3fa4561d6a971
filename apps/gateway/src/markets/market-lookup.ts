import { FapiError, NativeError } from '@perp/contracts';
import type { Market, MarketRegistry } from '@perp/domain';

/** FAPI: a symbol absent from the deployment (after alias normalization) is -1121. */
export function fapiMarket(registry: MarketRegistry, symbol: unknown): Market {
  const m = typeof symbol === 'string' ? registry.find(symbol) : undefined;
  if (!m) throw new FapiError('INVALID_SYMBOL', 'Invalid symbol.');
  return m;
}

/** Native market endpoints: an absent symbol is 404 INVALID_MARKET. */
export function nativeMarket(registry: MarketRegistry, symbol: unknown): Market {
  const m = typeof symbol === 'string' ? registry.find(symbol) : undefined;
  if (!m) throw new NativeError('INVALID_MARKET', `market ${String(symbol)} not found`);
  return m;
}
