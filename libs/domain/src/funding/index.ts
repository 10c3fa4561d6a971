// Explicit exports: decimal.ts (the input coercion) stays inside the module.
export {
  fundingIntervalMs,
  fundingTimeAtOrBefore,
  fundingTimesBetween,
  nextFundingTime,
} from './funding-times';
export {
  IMPACT_MARGIN_USDT,
  impactMarginNotional,
  impactPrice,
  impactPrices,
  type BookSides,
  type ImpactPrices,
  type PriceLevelInput,
} from './impact-price';
export { premiumIndexOf } from './premium-index';
export {
  PREMIUM_SAMPLER_STATE_VERSION,
  PremiumSampler,
  type IntervalPremium,
  type PremiumSamplerOptions,
  type PremiumSamplerState,
} from './premium-sampler';
export {
  FUNDING_RATE_DECIMALS,
  PREMIUM_DAMPENER,
  clampFundingRate,
  fundingRateOf,
  interestPerInterval,
  marketFundingRate,
} from './funding-rate';
export { MOVING_AVERAGE_STATE_VERSION, MovingAverage, type MovingAverageState } from './moving-average';
export {
  MARK_PRICE_DECIMALS,
  basisSample,
  fundingBasisPrice,
  markPriceOf,
  median3,
  type MarkPriceInputs,
} from './mark-price';
export { fundingPayment, fundingRound, type FundingRound } from './funding-payment';
export type { DecimalInput } from './decimal';
export {
  MARK_TRACKER_DEFAULTS,
  MARK_TRACKER_STATE_VERSION,
  MarkPriceTracker,
  type MarkMarket,
  type MarkObservation,
  type MarkReading,
  type MarkTrackerOptions,
  type MarkTrackerState,
} from './mark-price-tracker';
export {
  FUNDING_CLOCK_STATE_VERSION,
  FundingClock,
  fundingId,
  type FundingClockState,
  type FundingSettlementDue,
} from './funding-clock';
