import { FapiError, intParam, type RawParams, required, scalar } from '@perp/contracts';
import { type KlineInterval, type Market, MarketRegistry, parseKlineInterval } from '@perp/domain';
import { fapiMarket } from '../../markets/market-lookup';

import { limitParam, timeParam } from '../account/history-params';

export { limitParam, timeParam };

/** The required market parameter (`symbol`, or `pair` on the pair endpoints): -1102 missing, -1121 unknown. */
export function marketParam(markets: MarketRegistry, params: RawParams, name: 'symbol' | 'pair'): Market {
  return fapiMarket(markets, required(params, name));
}

/** An optional `symbol`: undefined = every market; sent (even empty) it must name one (-1121). */
export function optionalMarket(markets: MarketRegistry, params: RawParams): Market | undefined {
  const symbol = scalar(params, 'symbol');
  return symbol === undefined ? undefined : fapiMarket(markets, symbol);
}

/** Binance's depth limits; any other value is refused as Binance documents it (-1100 with the range). */
export const DEPTH_LIMITS = [5, 10, 20, 50, 100, 500, 1000] as const;

export function depthLimit(params: RawParams): number {
  const v = scalar(params, 'limit');
  if (v === undefined || v === '') return 500;
  const n = /^\d{1,4}$/.test(v) ? Number(v) : NaN;
  if (!(DEPTH_LIMITS as readonly number[]).includes(n))
    throw new FapiError(
      'ILLEGAL_CHARS',
      `Illegal characters found in parameter 'limit'; legal range is '${DEPTH_LIMITS.join(', ')}'.`,
    );
  return n;
}

/** The required kline `interval`, case-sensitive (1m a minute, 1M a month): -1102 missing, -1120 unknown. */
export function intervalParam(params: RawParams): KlineInterval {
  const interval = parseKlineInterval(required(params, 'interval'));
  if (!interval) throw new FapiError('INVALID_INTERVAL', 'Invalid interval.');
  return interval;
}

/** A per-symbol trade id (`fromId`): absent = undefined; not an integer -1100; negative -1102. */
export function idParam(params: RawParams, name: string): number | undefined {
  const v = scalar(params, name);
  if (v === undefined || v === '') return undefined;
  return intParam(params, name, 0, 0, Number.MAX_SAFE_INTEGER);
}

/** The only contract type here: every market is a perpetual. */
export function perpetualOnly(params: RawParams): void {
  if (required(params, 'contractType') !== 'PERPETUAL')
    throw new FapiError('INVALID_DATA_FOR_PARAMETER', 'Invalid contractType.');
}

const HOUR_MS = 3600_000;

/** Binance's aggTrades rule: with both times, the window is at most one hour. */
export function aggTradesWindow(params: RawParams): { startTime?: number; endTime?: number } {
  const startTime = timeParam(params, 'startTime');
  const endTime = timeParam(params, 'endTime');
  if (startTime !== undefined && endTime !== undefined && endTime - startTime > HOUR_MS)
    throw new FapiError('INVALID_DATA_FOR_PARAMETER', 'More than 1 hours between startTime and endTime.');
  return { startTime, endTime };
}
