import { type KlineInterval, parseKlineInterval } from '../market-data/kline-intervals';
import { normalizeSymbol } from '../symbols/normalize-symbol';

/** Update speeds a stream name may carry (Binance's suffixes), in milliseconds. */
export type DepthSpeed = 100 | 250 | 500;

/** A Binance USDⓈ-M market stream, parsed; `symbol` is canonical (aliases normalized). */
export type MarketStream =
  | { kind: 'aggTrade' | 'trade' | 'bookTicker' | 'miniTicker' | 'ticker' | 'forceOrder'; symbol: string }
  | { kind: 'markPrice'; symbol: string; speed: 1000 | 3000 }
  | { kind: 'depth'; symbol: string; speed: DepthSpeed; levels?: 5 | 10 | 20 }
  | { kind: 'kline'; symbol: string; interval: KlineInterval; continuous: boolean }
  | { kind: 'allBookTicker' | 'allMiniTicker' | 'allTicker' | 'allForceOrder' }
  | { kind: 'allMarkPrice'; speed: 1000 | 3000 };

export type StreamKind = MarketStream['kind'];

/** Streams served on Binance's `/public` paths (the book); everything else is on `/market`. */
export function isBookStream(s: MarketStream): boolean {
  return s.kind === 'depth' || s.kind === 'bookTicker' || s.kind === 'allBookTicker';
}

const ALL: Record<string, MarketStream> = {
  '!bookticker': { kind: 'allBookTicker' },
  '!miniticker@arr': { kind: 'allMiniTicker' },
  '!ticker@arr': { kind: 'allTicker' },
  '!forceorder@arr': { kind: 'allForceOrder' },
  '!markprice@arr': { kind: 'allMarkPrice', speed: 3000 },
  '!markprice@arr@1s': { kind: 'allMarkPrice', speed: 1000 },
};

const SIMPLE = new Set(['aggtrade', 'trade', 'bookticker', 'miniticker', 'ticker', 'forceorder']);
const CASED: Record<string, 'aggTrade' | 'bookTicker' | 'miniTicker' | 'forceOrder'> = {
  aggtrade: 'aggTrade',
  bookticker: 'bookTicker',
  miniticker: 'miniTicker',
  forceorder: 'forceOrder',
};
const DEPTH_SPEEDS: Record<string, DepthSpeed> = { '': 250, '@100ms': 100, '@250ms': 250, '@500ms': 500 };

/**
 * Parses a stream name as Binance clients send it (`btcusdt@depth@100ms`, `!ticker@arr`,
 * `btcusdt_perpetual@continuousKline_1m`). The stream type is matched case-insensitively except the
 * kline interval (`1M` is a month, `1m` a minute); the symbol goes through `normalizeSymbol`, so
 * every alias REST accepts names the same stream. Undefined when the name is no stream.
 */
export function parseStreamName(name: string): MarketStream | undefined {
  const all = ALL[name.toLowerCase()];
  if (all) return all;
  const at = name.indexOf('@');
  if (at <= 0) return undefined;
  const rawSymbol = name.slice(0, at);
  const rest = name.slice(at + 1);
  const lower = rest.toLowerCase();
  if (SIMPLE.has(lower)) {
    const kind = CASED[lower] ?? (lower as 'trade' | 'ticker');
    return { kind, symbol: normalizeSymbol(rawSymbol) };
  }
  if (lower === 'markprice' || lower === 'markprice@1s')
    return {
      kind: 'markPrice',
      symbol: normalizeSymbol(rawSymbol),
      speed: lower === 'markprice' ? 3000 : 1000,
    };
  const depth = /^depth(5|10|20)?(@\d+ms)?$/.exec(lower);
  if (depth) {
    const speed = DEPTH_SPEEDS[depth[2] ?? ''];
    if (speed === undefined) return undefined;
    const levels = depth[1] ? (Number(depth[1]) as 5 | 10 | 20) : undefined;
    return { kind: 'depth', symbol: normalizeSymbol(rawSymbol), speed, ...(levels ? { levels } : {}) };
  }
  const kline = /^(kline|continuouskline)_(\w+)$/i.exec(rest);
  if (kline) {
    const interval = parseKlineInterval(kline[2]);
    if (!interval) return undefined;
    const continuous = kline[1]!.toLowerCase() === 'continuouskline';
    if (!continuous) return { kind: 'kline', symbol: normalizeSymbol(rawSymbol), interval, continuous };
    // `<pair>_perpetual`: every market here is a perpetual.
    const cut = rawSymbol.lastIndexOf('_');
    if (cut <= 0 || rawSymbol.slice(cut + 1).toLowerCase() !== 'perpetual') return undefined;
    return { kind: 'kline', symbol: normalizeSymbol(rawSymbol.slice(0, cut)), interval, continuous };
  }
  return undefined;
}

/**
 * The stream's canonical name: one per distinct feed, whatever alias or case the client used
 * (what the fan-out keys subscribers by). Clients get their events under the name they sent.
 */
export function streamKey(s: MarketStream): string {
  switch (s.kind) {
    case 'allBookTicker':
      return '!bookTicker';
    case 'allMiniTicker':
      return '!miniTicker@arr';
    case 'allTicker':
      return '!ticker@arr';
    case 'allForceOrder':
      return '!forceOrder@arr';
    case 'allMarkPrice':
      return s.speed === 1000 ? '!markPrice@arr@1s' : '!markPrice@arr';
    case 'markPrice':
      return `${s.symbol}@markPrice${s.speed === 1000 ? '@1s' : ''}`;
    case 'depth':
      return `${s.symbol}@depth${s.levels ?? ''}@${s.speed}ms`;
    case 'kline':
      return s.continuous
        ? `${s.symbol}_perpetual@continuousKline_${s.interval}`
        : `${s.symbol}@kline_${s.interval}`;
    default:
      return `${s.symbol}@${s.kind}`;
  }
}

/**
 * Whether a path serves the stream: Binance's `/public` paths carry the book (depth, bookTicker;
 * `trade` too, where ccxt looks for it), `/market` everything else; the legacy `/ws` and `/stream`
 * carry every stream.
 */
export function servedOn(s: MarketStream, surface: 'all' | 'public' | 'market' | 'private'): boolean {
  if (surface === 'all') return true;
  if (surface === 'private') return false;
  const book = isBookStream(s);
  return surface === 'public' ? book || s.kind === 'trade' : !book;
}
