import { FapiError, fapiIssue, fapiParam as P } from '@perp/contracts';
import { KLINE_INTERVALS } from '@perp/domain';
import { z } from 'zod';

/** Binance's depth limits; any other value is refused as Binance documents it (-1100 with the range). */
export const DEPTH_LIMITS = [5, 10, 20, 50, 100, 500, 1000] as const;

const depthLimit = z
  .enum(
    DEPTH_LIMITS.map(String) as [string, ...string[]],
    fapiIssue(
      'ILLEGAL_CHARS',
      `Illegal characters found in parameter '{name}'; legal range is '${DEPTH_LIMITS.join(', ')}'.`,
    ),
  )
  .transform(Number)
  .optional()
  .transform((n) => n ?? 500)
  .meta({ description: 'Levels per side (default 500)' });

/** The kline `interval`, case-sensitive (1m a minute, 1M a month): -1102 missing, -1120 unknown. */
const interval = P.oneOf(
  KLINE_INTERVALS,
  'INVALID_INTERVAL',
  'Candle interval (case-sensitive: 1m minute, 1M month)',
  'Invalid interval.',
);

/** A per-symbol trade id (`fromId`): not an integer -1100; negative -1102. */
const tradeId = (description: string) => P.int(description, 0).optional();

const window = {
  startTime: P.time('From this time').optional(),
  endTime: P.time('Up to this time').optional(),
};

export const DEPTH_PARAMS = { symbol: P.symbol(), limit: depthLimit };

const klines = (market: 'symbol' | 'pair') => ({
  [market]: P.symbol(market === 'pair' ? 'Pair (= symbol: every market is a perpetual)' : undefined),
});
const klineRest = { interval, ...window, limit: P.limit(500, 1500) };

export const KLINES_PARAMS = { ...klines('symbol'), ...klineRest } as {
  symbol: z.ZodString;
} & typeof klineRest;
export const PAIR_KLINES_PARAMS = { ...klines('pair'), ...klineRest } as {
  pair: z.ZodString;
} & typeof klineRest;
/** By pair; every market is a perpetual, so `contractType` must be PERPETUAL (-1130 otherwise). */
export const CONTINUOUS_KLINES_PARAMS = {
  pair: P.symbol('Pair (= symbol: every market is a perpetual)'),
  contractType: P.oneOf(['PERPETUAL'], 'INVALID_DATA_FOR_PARAMETER', 'Only PERPETUAL'),
  ...klineRest,
};

export const TRADES_PARAMS = { symbol: P.symbol(), limit: P.limit(500, 1000) };
export const HISTORICAL_TRADES_PARAMS = {
  symbol: P.symbol(),
  limit: P.limit(100, 500),
  fromId: tradeId('Trades from this trade id on (default: the latest)'),
};
export const AGG_TRADES_PARAMS = {
  symbol: P.symbol(),
  fromId: tradeId('Aggregates from this id on (then the times are ignored)'),
  ...window,
  limit: P.limit(500, 1000),
};

/** An optional `symbol`: absent = every market; sent (even empty) it must name one (-1121). */
export const OPTIONAL_SYMBOL = {
  symbol: P.keepEmpty(P.symbol('Symbol, any alias; without it, every market').optional()),
};

const HOUR_MS = 3600_000;

/** Binance's aggTrades rule: with both times, the window is at most one hour. */
export function checkAggTradesWindow(startTime?: number, endTime?: number): void {
  if (startTime !== undefined && endTime !== undefined && endTime - startTime > HOUR_MS)
    throw new FapiError('INVALID_DATA_FOR_PARAMETER', 'More than 1 hours between startTime and endTime.');
}
