import { floorTo } from '../account/rounding';
import { Money } from '../money/money';

/**
 * The funding income of one position (signed, the wallet's side): −size × mark × rate, so a long
 * pays a positive rate and a short receives it. Rounded down to 8 decimals (SETTLEMENT_DECIMALS),
 * toward −∞: a payer pays the dust, a receiver forgoes it. The same rule as account
 * `settleFunding`.
 */
export function fundingPayment(size: Money, markPrice: Money, rate: Money): Money {
  return floorTo(size.times(markPrice).times(rate).negated());
}

export interface FundingRound<T> {
  /** One payment per position, in the given order (0 when it rounds to nothing). */
  payments: { position: T; payment: Money }[];
  /**
   * What the insurance fund takes so the round sums to zero: −Σ payments. Over a whole market
   * (sizes summing to 0) this is the rounding dust, 0 ≤ dust < positions × 10⁻⁸.
   */
  dust: Money;
}

/** One funding round over `positions` at one mark and rate: Σ payments + dust = 0 exactly. */
export function fundingRound<T extends { size: Money }>(
  positions: readonly T[],
  markPrice: Money,
  rate: Money,
): FundingRound<T> {
  let sum = new Money(0);
  const payments = positions.map((position) => {
    const payment = fundingPayment(position.size, markPrice, rate);
    sum = sum.plus(payment);
    return { position, payment };
  });
  return { payments, dust: sum.negated() };
}
