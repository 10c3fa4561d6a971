import { FapiError, type RawParams, required, scalar } from '@perp/contracts';
import {
  type Market,
  type MarketRegistry,
  type PeriodWindow,
  parseStatsPeriod,
  type StatsPeriod,
} from '@perp/domain';
import { fapiMarket } from '../../markets/market-lookup';
import { limitParam, timeParam } from '../account/history-params';

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
export function statsQuery(markets: MarketRegistry, params: RawParams): StatsQuery {
  const market = fapiMarket(markets, required(params, 'symbol'));
  const raw = scalar(params, 'period');
  const period = raw === undefined || raw === '' ? '5m' : parseStatsPeriod(raw);
  if (!period) throw new FapiError('INVALID_INTERVAL', 'Invalid period.');
  return {
    market,
    period,
    window: {
      startTime: timeParam(params, 'startTime'),
      endTime: timeParam(params, 'endTime'),
      limit: limitParam(params, STATS_LIMIT.default, STATS_LIMIT.max),
    },
  };
}
