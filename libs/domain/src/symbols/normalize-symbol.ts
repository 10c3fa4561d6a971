/**
 * Canonical symbol form, as the spec defines it for every surface: uppercase, `-` `/` `_` stripped,
 * and a trailing USD read as USDT (BTC-USD, BTC/USDT, btc_usdt and btcusdt all give BTCUSDT).
 */
export function normalizeSymbol(input: string): string {
  const compact = input.toUpperCase().replace(/[-/_]/g, '');
  return compact.endsWith('USD') ? `${compact}T` : compact;
}
