import { z } from 'zod';
import { Money, parseDecimal } from '../money/money';
import { marketFundingRate } from './funding-rate';
import { fundingIntervalMs } from './funding-times';
import type { MarkMarket } from './mark-price-tracker';
import { PremiumSampler } from './premium-sampler';

/** One market's funding round: the rate of the interval that ended at `fundingTime`, and the mark then. */
export interface FundingSettlementDue {
  id: string;
  symbol: string;
  fundingTime: number;
  fundingRate: Money;
  markPrice: Money;
}

/** The deterministic id of a market's funding round: one per symbol and funding time. */
export const fundingId = (symbol: string, fundingTime: number): string => `funding/${symbol}/${fundingTime}`;

export const FUNDING_CLOCK_STATE_VERSION = 1;
const stateSchema = z
  .object({
    v: z.literal(FUNDING_CLOCK_STATE_VERSION),
    symbol: z.string(),
    sampler: z.unknown(),
    mark: z.string().refine((s) => parseDecimal(s) !== undefined, 'a decimal string'),
    markTime: z.number().int().nonnegative(),
  })
  .strict();
export type FundingClockState = z.infer<typeof stateSchema>;

/**
 * One market's funding from its mark events: the premium samples of each interval (the marks'
 * `premiumIndex`, one per cadence slot, weighted by slot, as the mark stage took them) and the last
 * mark. A mark whose time reaches a funding time first settles every interval that ended at or
 * before it (several after downtime; an interval without samples pays the interest rate), each
 * with the last mark seen before it, then samples. Only the log's times move it, so a replay
 * settles the same rounds with the same rates; a mark older than the last sampled slot adds nothing.
 */
export class FundingClock {
  private constructor(
    readonly symbol: string,
    private sampler: PremiumSampler,
    private mark: Money,
    private markTime: number,
  ) {}

  static start(symbol: string, time: number, market: MarkMarket, cadenceMs: number): FundingClock {
    const intervalMs = fundingIntervalMs(market);
    return new FundingClock(symbol, PremiumSampler.forTime(time, { intervalMs, cadenceMs }), new Money(0), 0);
  }

  /** The funding time the current interval ends at. */
  get nextFundingTime(): number {
    return this.sampler.fundingTime;
  }

  /** Applies a mark; returns the rounds it completes, oldest first. */
  onMark(market: MarkMarket, time: number, markPrice: Money, premium: Money): FundingSettlementDue[] {
    const settled = this.sampler.settleDue(time);
    const due = this.mark.gt(0)
      ? settled.map((p) => ({
          id: fundingId(this.symbol, p.fundingTime),
          symbol: this.symbol,
          fundingTime: p.fundingTime,
          fundingRate: marketFundingRate(market, p.averagePremium),
          markPrice: this.mark,
        }))
      : [];
    this.sampler.add(time, premium);
    if (time >= this.markTime) {
      this.mark = markPrice;
      this.markTime = time;
    }
    return due;
  }

  toJSON(): FundingClockState {
    return {
      v: FUNDING_CLOCK_STATE_VERSION,
      symbol: this.symbol,
      sampler: this.sampler.toJSON(),
      mark: this.mark.toFixed(),
      markTime: this.markTime,
    };
  }

  static fromJSON(input: unknown): FundingClock {
    const s = stateSchema.parse(input);
    return new FundingClock(s.symbol, PremiumSampler.fromJSON(s.sampler), new Money(s.mark), s.markTime);
  }
}
