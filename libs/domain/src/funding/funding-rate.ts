import type { Market } from '../markets/market';
import { Money } from '../money/money';
import { type DecimalInput, toMoney } from './decimal';
import { fundingIntervalMs } from './funding-times';

/** Binance's dampener: the interest term moves the rate at most ±0.05 % from the premium. */
export const PREMIUM_DAMPENER = '0.0005';

/** Funding rates are published and applied with 8 decimals, as Binance shows them. */
export const FUNDING_RATE_DECIMALS = 8;

const ZERO = new Money(0);

function clamp(x: Money, lo: Money, hi: Money): Money {
  return Money.min(hi, Money.max(lo, x));
}

/**
 * The interest rate I of one funding interval. The market's `interestRate` is hourly (Binance's
 * 0.03 % a day = 0.0000125 an hour), so I = hourly × interval hours: 0.01 % for 8 h, 0.005 % for
 * 4 h, 0.0000125 / 60 for a one-minute test interval (18 places, rounded down).
 */
export function interestPerInterval(
  market: Pick<Market, 'interestRate' | 'fundingIntervalHours' | 'fundingIntervalMinutes'>,
): Money {
  const minutes = fundingIntervalMs(market) / 60_000;
  return toMoney(market.interestRate, 'interestRate').times(minutes).div(60);
}

/** The rate held to the market's cap and floor: [−cap, +cap]. */
export function clampFundingRate(rate: Money, cap: DecimalInput): Money {
  const c = toMoney(cap, 'funding rate cap');
  if (!c.gt(0)) throw new RangeError(`funding rate cap must be positive: ${c.toFixed()}`);
  return clamp(rate, c.negated(), c);
}

/**
 * Binance's funding rate F = P + clamp(I − P, −0.05 %, +0.05 %), where P is the interval's
 * weighted average premium (0 when no sample was taken) and I the interest of the interval;
 * rounded half-even to 8 decimals, then held to [−cap, +cap]. So a quiet market (|I − P| ≤ 0.05 %)
 * pays exactly the interest rate.
 */
export function fundingRateOf(averagePremium: Money | undefined, interest: Money, cap: DecimalInput): Money {
  const p = averagePremium ?? ZERO;
  const d = toMoney(PREMIUM_DAMPENER, 'dampener');
  const f = p.plus(clamp(interest.minus(p), d.negated(), d));
  return clampFundingRate(f.decimalPlaces(FUNDING_RATE_DECIMALS, Money.ROUND_HALF_EVEN), cap);
}

/** `fundingRateOf` with the market's interest per interval and its `fundingRateCap`. */
export function marketFundingRate(
  market: Pick<Market, 'interestRate' | 'fundingIntervalHours' | 'fundingIntervalMinutes' | 'fundingRateCap'>,
  averagePremium: Money | undefined,
): Money {
  return fundingRateOf(averagePremium, interestPerInterval(market), market.fundingRateCap);
}
