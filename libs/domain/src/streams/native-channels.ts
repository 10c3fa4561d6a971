import { parseKlineInterval } from '../market-data/kline-intervals';
import { normalizeSymbol } from '../symbols/normalize-symbol';
import type { MarketStream } from './stream-names';

/** Public channels of the native WebSocket API (`/api/v1/ws`), by the name's first part. */
export type NativePublicKind = 'ticker' | 'trades' | 'orderbook' | 'kline' | 'markPrice';
/** Private channels: the authenticated user's own orders, positions, balances and algo orders. */
export type NativePrivateKind = 'orders' | 'positions' | 'balances' | 'algoOrders';

/**
 * A native channel, parsed. A public one names the market stream it is served from (the same feed
 * as the Binance-compatible stream, so both surfaces show the same events); `symbol` is canonical.
 */
export type NativeChannel =
  | { scope: 'public'; kind: NativePublicKind; symbol: string; stream: MarketStream }
  | { scope: 'private'; kind: NativePrivateKind };

const PUBLIC: Record<string, NativePublicKind> = {
  ticker: 'ticker',
  trades: 'trades',
  orderbook: 'orderbook',
  kline: 'kline',
  markprice: 'markPrice',
};
const PRIVATE: Record<string, NativePrivateKind> = {
  orders: 'orders',
  positions: 'positions',
  balances: 'balances',
  algoorders: 'algoOrders',
};

/** The market stream a public channel reads: 24 h ticker, each trade, 100 ms book diffs, candles, 1 s marks. */
function streamOf(kind: NativePublicKind, symbol: string, interval?: string): MarketStream | undefined {
  switch (kind) {
    case 'ticker':
      return { kind: 'ticker', symbol };
    case 'trades':
      return { kind: 'trade', symbol };
    case 'orderbook':
      return { kind: 'depth', symbol, speed: 100 };
    case 'markPrice':
      return { kind: 'markPrice', symbol, speed: 1000 };
    case 'kline': {
      const i = interval === undefined ? undefined : parseKlineInterval(interval);
      return i ? { kind: 'kline', symbol, interval: i, continuous: false } : undefined;
    }
  }
}

/**
 * Parses a native channel name: `ticker:<symbol>`, `trades:<symbol>`, `orderbook:<symbol>`,
 * `markPrice:<symbol>`, `kline:<symbol>:<interval>`, or a private `orders`, `positions`,
 * `balances`, `algoOrders`. The kind is matched case-insensitively, the kline interval exactly
 * (`1M` is a month); the symbol goes through `normalizeSymbol`, so every alias REST accepts names
 * the same channel. Undefined when the name is no channel (whether the market exists is the
 * caller's to check).
 */
export function parseNativeChannel(name: string): NativeChannel | undefined {
  const parts = name.split(':');
  const kind = parts[0]!.toLowerCase();
  const priv = PRIVATE[kind];
  if (priv) return parts.length === 1 ? { scope: 'private', kind: priv } : undefined;
  const pub = PUBLIC[kind];
  if (!pub || !parts[1]) return undefined;
  if (parts.length !== (pub === 'kline' ? 3 : 2)) return undefined;
  const symbol = normalizeSymbol(parts[1]);
  if (!/^[A-Z0-9]+$/.test(symbol)) return undefined;
  const stream = streamOf(pub, symbol, parts[2]);
  return stream ? { scope: 'public', kind: pub, symbol, stream } : undefined;
}
