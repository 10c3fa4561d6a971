import { z } from 'zod';
import type { Market } from '../markets/market';
import { Money } from '../money/money';
import { fundingIntervalMs } from './funding-times';
import { marketFundingRate } from './funding-rate';
import { type BookSides, impactMarginNotional, impactPrices } from './impact-price';
import { basisSample, markPriceOf } from './mark-price';
import { MovingAverage } from './moving-average';
import { premiumIndexOf } from './premium-index';
import { PremiumSampler } from './premium-sampler';

export type MarkMarket = Pick<
  Market,
  'maxLeverage' | 'interestRate' | 'fundingIntervalHours' | 'fundingIntervalMinutes' | 'fundingRateCap'
>;

export interface MarkTrackerOptions {
  /** Premium sampling cadence (ms); must divide the funding interval. Binance: 5 s. */
  cadenceMs: number;
  /** Window of the basis moving average (ms). */
  basisWindowMs: number;
}

export const MARK_TRACKER_DEFAULTS: MarkTrackerOptions = { cadenceMs: 5_000, basisWindowMs: 300_000 };

/** What a mark stage observed at one index tick. */
export interface MarkObservation {
  time: number;
  index: Money;
  /** The L2 book, best levels first on each side. */
  book: BookSides;
  /** The last traded price; undefined before the first trade. */
  lastPrice: Money | undefined;
}

/** One published mark with the figures it was derived from. */
export interface MarkReading {
  time: number;
  markPrice: Money;
  indexPrice: Money;
  premiumIndex: Money;
  /** The current interval's estimated rate (clamped and capped): Binance's "last funding rate". */
  fundingRate: Money;
  /** The market's hourly interest rate, as premiumIndex shows it. */
  interestRate: Money;
  nextFundingTime: number;
}

export const MARK_TRACKER_STATE_VERSION = 1;
const stateSchema = z
  .object({ v: z.literal(MARK_TRACKER_STATE_VERSION), sampler: z.unknown(), basis: z.unknown() })
  .strict();
export type MarkTrackerState = z.infer<typeof stateSchema>;

/**
 * The mark price of one market from its index ticks: at each tick a premium sample (impact prices
 * vs index; the sampler keeps one per cadence slot, weighted by slot) and a basis sample (mid −
 * index, into the moving average), then the current interval's estimated rate and Binance's
 * median mark. Time is the tick's: a replay of the same ticks over the same books gives the same
 * marks. A tick older than the last one sampled adds no sample but still yields a mark.
 */
export class MarkPriceTracker {
  private constructor(
    private sampler: PremiumSampler,
    private readonly basis: MovingAverage,
    private readonly options: MarkTrackerOptions,
  ) {}

  static start(time: number, market: MarkMarket, options = MARK_TRACKER_DEFAULTS): MarkPriceTracker {
    return new MarkPriceTracker(
      PremiumSampler.forTime(time, { intervalMs: fundingIntervalMs(market), cadenceMs: options.cadenceMs }),
      new MovingAverage(options.basisWindowMs),
      options,
    );
  }

  observe(market: MarkMarket, o: MarkObservation): MarkReading | undefined {
    if (!o.index.gt(0)) return undefined;
    const intervalMs = fundingIntervalMs(market);
    // A market whose interval changed starts sampling the interval holding this tick afresh.
    if (this.sampler.fundingTime - this.sampler.intervalStart !== intervalMs)
      this.sampler = PremiumSampler.forTime(o.time, { intervalMs, cadenceMs: this.options.cadenceMs });
    this.sampler.settleDue(o.time);
    const { impactBid, impactAsk } = impactPrices(o.book, impactMarginNotional(market.maxLeverage));
    const premium = premiumIndexOf(o.index, impactBid, impactAsk) ?? new Money(0);
    this.sampler.add(o.time, premium);
    const basis = basisSample(o.book, o.index);
    if (basis) this.basis.add(o.time, basis);
    const fundingRate = marketFundingRate(market, this.sampler.average());
    const markPrice = markPriceOf({
      time: o.time,
      intervalMs,
      index: o.index,
      fundingRate,
      basisAverage: this.basis.average(Math.max(o.time, this.basis.lastTime ?? o.time)),
      lastPrice: o.lastPrice?.gt(0) ? o.lastPrice : undefined,
    })!;
    return {
      time: o.time,
      markPrice,
      indexPrice: o.index,
      premiumIndex: premium,
      fundingRate,
      interestRate: new Money(market.interestRate),
      nextFundingTime: this.sampler.fundingTime,
    };
  }

  toJSON(): MarkTrackerState {
    return { v: MARK_TRACKER_STATE_VERSION, sampler: this.sampler.toJSON(), basis: this.basis.toJSON() };
  }

  static fromJSON(input: unknown, options = MARK_TRACKER_DEFAULTS): MarkPriceTracker {
    const s = stateSchema.parse(input);
    return new MarkPriceTracker(PremiumSampler.fromJSON(s.sampler), MovingAverage.fromJSON(s.basis), options);
  }
}
