import { fundingIntervalMs, type Market, Money, nextFundingTime as nextFundingTimeAfter } from '@perp/domain';
import type { FundingRateEntity } from '@perp/persistence';
import { amount } from '../account/format';
import type { PriceReading } from './market-stats.reader';

const ZERO = new Money(0);

/**
 * The next funding time after `now`: the next multiple of the market's funding interval since
 * the epoch (UTC), so an 8 h market funds at 00:00, 08:00 and 16:00 UTC. Strictly after `now`.
 */
export function nextFundingTime(
  market: Pick<Market, 'fundingIntervalHours' | 'fundingIntervalMinutes'>,
  now: number,
): number {
  return nextFundingTimeAfter(now, fundingIntervalMs(market));
}

/**
 * GET /fapi/v1/premiumIndex (Binance "Mark Price"): the latest mark market data derived (the price
 * hash); no price yet = zeros stamped with `now`. lastFundingRate = the current interval's clamped
 * rate the mark carries (spec), else the latest settled rate, else 0; interestRate = the market's
 * configured hourly rate (spec). Rates and prices at 8 decimals, as Binance.
 */
export function markPriceRow(
  market: Market,
  price: PriceReading,
  lastFunding: FundingRateEntity | undefined,
  now: number,
) {
  const mark = amount(price.mark ?? ZERO);
  return {
    symbol: market.symbol,
    markPrice: mark,
    indexPrice: amount(price.index ?? ZERO),
    estimatedSettlePrice: mark,
    lastFundingRate: amount(price.fundingRate ?? (lastFunding ? new Money(lastFunding.fundingRate) : ZERO)),
    interestRate: amount(new Money(market.interestRate)),
    nextFundingTime: nextFundingTime(market, now),
    time: price.time > 0 ? price.time : now,
  };
}

/** A row of GET /fapi/v1/fundingRate (Binance "Get Funding Rate History"). */
export function fundingRateRow(f: FundingRateEntity) {
  return {
    symbol: f.symbol,
    fundingRate: amount(new Money(f.fundingRate)),
    fundingTime: f.fundingTime,
    markPrice: amount(new Money(f.markPrice)),
  };
}

/**
 * A row of GET /fapi/v1/fundingInfo (Binance "Get Funding Rate Info"): the market's clamp
 * [−fundingRateCap, +fundingRateCap] and funding interval. Binance lists only symbols whose
 * settings were adjusted; every market is listed here (clients read the interval from it).
 */
export function fundingInfoRow(market: Market) {
  const cap = new Money(market.fundingRateCap);
  return {
    symbol: market.symbol,
    adjustedFundingRateCap: amount(cap),
    adjustedFundingRateFloor: amount(cap.negated()),
    fundingIntervalHours: market.fundingIntervalHours,
    disclaimer: false,
  };
}
