import type { OpenInterest } from '@perp/contracts';
import { fundingIntervalMs, type Market, Money } from '@perp/domain';
import type { FundingRateEntity } from '@perp/persistence';
import { amount, price } from '../fapi/account/format';
import { nextFundingTime } from '../fapi/market-stats/funding-view';
import type { PriceReading } from '../fapi/market-stats/market-stats.reader';
import { nativeOpenInterest } from './trading/open-interest-view';

const iso = (ms: number) => new Date(ms).toISOString();

/** The mark, index and estimated rate of a price reading as native fields (null while unknown). */
export function nativePriceFields(market: Market, p: PriceReading, now: number) {
  const known = (x?: Money) => (x?.gt(0) ? price(x) : null);
  return {
    mark_price: known(p.mark),
    index_price: known(p.index),
    funding_rate: p.fundingRate ? amount(p.fundingRate) : null,
    next_funding_time: iso(nextFundingTime(market, now)),
  };
}

/**
 * GET /api/v1/funding-rates/{symbol}: the rate in force (the last settled), the current interval's
 * estimate (predicted, paid at the next funding time), the market's interval, cap and floor, and
 * the open interest per side in base units and USD at the mark with the per-side caps.
 */
export function nativeFundingRate(
  market: Market,
  p: PriceReading,
  last: FundingRateEntity | undefined,
  oi: OpenInterest,
  now: number,
) {
  const cap = new Money(market.fundingRateCap);
  const { mark_price, index_price, funding_rate, next_funding_time } = nativePriceFields(market, p, now);
  const { symbol, ...sides } = nativeOpenInterest(market, oi, p.mark?.gt(0) ? p.mark : undefined);
  return {
    symbol,
    funding_rate: last ? amount(new Money(last.fundingRate)) : null,
    funding_time: last ? iso(last.fundingTime) : null,
    predicted_funding_rate: funding_rate,
    next_funding_time,
    funding_interval_minutes: fundingIntervalMs(market) / 60_000,
    funding_rate_cap: amount(cap),
    funding_rate_floor: amount(cap.negated()),
    interest_rate: amount(new Money(market.interestRate)),
    mark_price,
    index_price,
    long_oi: sides.long_oi,
    short_oi: sides.short_oi,
    long_oi_usd: sides.long_oi_usd,
    short_oi_usd: sides.short_oi_usd,
    max_long_oi: sides.max_long_oi,
    max_short_oi: sides.max_short_oi,
    max_long_oi_usd: sides.max_long_oi_usd,
    max_short_oi_usd: sides.max_short_oi_usd,
  };
}
