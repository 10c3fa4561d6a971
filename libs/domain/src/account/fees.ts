import type { FeeTier } from '../markets/market';
import { parsedOnce } from '../markets/parsed-once';
import { Money } from '../money/money';
import { ceilTo, ZERO } from './rounding';

export type Liquidity = 'MAKER' | 'TAKER';

export interface FeeRates {
  readonly maker: Money;
  readonly taker: Money;
}

/** A VIP tier the chain defines (tiers are numbered 0..n-1 by parseChain). */
export function isValidVipTier(feeTiers: readonly FeeTier[], tier: number): boolean {
  return Number.isInteger(tier) && feeTiers.some((t) => t.tier === tier);
}

/**
 * Maker and taker rates of a tier. A negative configured rate (a rebate) is read as 0: the spec
 * says COMMISSION income is always negative, and rebates would need an income type it lacks.
 */
export function feeRates(feeTiers: readonly FeeTier[], tier: number): FeeRates {
  const t = feeTiers.find((f) => f.tier === tier);
  if (!t) throw new Error(`unknown VIP tier ${tier}`);
  return ratesOf(t);
}

/** A tier's rates parsed once per tier object (every fill reads them). */
const ratesOf = parsedOnce((t: FeeTier): FeeRates => ({
  maker: Money.max(t.makerRate, ZERO),
  taker: Money.max(t.takerRate, ZERO),
}));

/** Commission of a fill: notional x rate rounded UP to 8 decimals, in favour of the fee account. */
export function commission(notional: Money, rate: Money): Money {
  return ceilTo(notional.abs().times(rate));
}
