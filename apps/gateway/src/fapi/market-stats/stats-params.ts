import { type FapiFields, fapiParam as P } from '@perp/contracts';
import {
  type Market,
  type MarketRegistry,
  type PeriodWindow,
  STATS_PERIODS,
  type StatsPeriod,
} from '@perp/domain';
import { fapiMarket } from '../../markets/market-lookup';

/** The parameters of a `/futures/data` series. */
export interface StatsQuery {
  market: Market;
  period: StatsPeriod;
  window: PeriodWindow;
}

export const STATS_LIMIT = { default: 30, max: 500 } as const;

/**
 * symbol (required: missing -1102, unknown -1121), period (default 5m, anything but the nine
 * periods -1120), limit (default 30, max 500: above is clamped), startTime and endTime (ms).
 */
export const STATS_PARAMS = {
  symbol: P.symbol(),
  period: P.oneOf(STATS_PERIODS, 'INVALID_INTERVAL', 'Bucket length', 'Invalid period.').default('5m'),
  startTime: P.time('From this time').optional(),
  endTime: P.time('Up to this time').optional(),
  limit: P.limit(STATS_LIMIT.default, STATS_LIMIT.max),
};

export function statsQuery(markets: MarketRegistry, q: FapiFields<typeof STATS_PARAMS>): StatsQuery {
  const market = fapiMarket(markets, q.get('symbol'));
  return {
    market,
    period: q.get('period'),
    window: { startTime: q.get('startTime'), endTime: q.get('endTime'), limit: q.get('limit') },
  };
}
