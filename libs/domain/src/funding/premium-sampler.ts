import { z } from 'zod';
import { Money, parseDecimal } from '../money/money';
import { fundingTimeAtOrBefore } from './funding-times';

export interface PremiumSamplerOptions {
  /** The market's funding interval (ms). */
  intervalMs: number;
  /** Time between samples (ms), dividing the interval: Binance samples every 5 s. */
  cadenceMs: number;
}

/** What a funding round needs from the interval that ends at `fundingTime`. */
export interface IntervalPremium {
  fundingTime: number;
  /** The weighted average premium; undefined when no sample was taken in the interval. */
  averagePremium: Money | undefined;
  samples: number;
}

export const PREMIUM_SAMPLER_STATE_VERSION = 1;

const stateSchema = z
  .object({
    v: z.literal(PREMIUM_SAMPLER_STATE_VERSION),
    intervalMs: z.number().int().positive(),
    cadenceMs: z.number().int().positive(),
    fundingTime: z.number().int(),
    lastSlot: z.number().int().nonnegative(),
    samples: z.number().int().nonnegative(),
    weightedSum: z.string().refine((s) => parseDecimal(s) !== undefined, 'a decimal string'),
    weightSum: z.number().int().nonnegative(),
  })
  .strict();

/** Plain JSON state of a sampler (a service's snapshot), money as decimal strings. */
export type PremiumSamplerState = z.infer<typeof stateSchema>;

function slotsOf(o: PremiumSamplerOptions): number {
  const { intervalMs, cadenceMs } = o;
  if (
    !Number.isSafeInteger(intervalMs) ||
    intervalMs <= 0 ||
    !Number.isSafeInteger(cadenceMs) ||
    cadenceMs <= 0
  )
    throw new RangeError('interval and cadence must be positive integers of ms');
  if (intervalMs % cadenceMs !== 0) throw new RangeError('the cadence must divide the funding interval');
  return intervalMs / cadenceMs;
}

/**
 * The premium index samples of one funding interval [fundingTime − interval, fundingTime), averaged
 * with Binance's weights: (1·p1 + 2·p2 + … + n·pn) / (1 + 2 + … + n). The weight of a sample is its
 * slot in the interval, floor((time − start) / cadence) + 1, so it depends on the sample's time only:
 * a missed sample leaves its weight out of both sums, and a second sample in a slot already taken
 * is ignored. State is O(1): the two sums, the last slot and a count.
 */
export class PremiumSampler {
  private constructor(
    private readonly options: PremiumSamplerOptions,
    private end: number,
    private lastSlot: number,
    private count: number,
    private weightedSum: Money,
    private weightSum: number,
  ) {}

  /** An empty sampler of the interval holding `time`. */
  static forTime(time: number, options: PremiumSamplerOptions): PremiumSampler {
    slotsOf(options);
    const o = { intervalMs: options.intervalMs, cadenceMs: options.cadenceMs };
    return new PremiumSampler(
      o,
      fundingTimeAtOrBefore(time, o.intervalMs) + o.intervalMs,
      0,
      0,
      new Money(0),
      0,
    );
  }

  /** The funding time that ends the interval being sampled. */
  get fundingTime(): number {
    return this.end;
  }

  get intervalStart(): number {
    return this.end - this.options.intervalMs;
  }

  get samples(): number {
    return this.count;
  }

  /**
   * Takes the sample at `time` and returns true; false when it is late (before this interval, or
   * in a slot at or before the last one sampled). A time at or after the funding time throws: the
   * interval must be settled first.
   */
  add(time: number, premium: Money): boolean {
    if (time >= this.end)
      throw new RangeError(`sample at ${time} is past the funding time ${this.end}: settle first`);
    if (!premium.isFinite()) throw new RangeError('premium is not a finite decimal');
    const start = this.intervalStart;
    if (time < start) return false;
    const slot = Math.floor((time - start) / this.options.cadenceMs) + 1;
    if (slot <= this.lastSlot) return false;
    this.weightedSum = this.weightedSum.plus(premium.times(slot));
    this.weightSum += slot;
    this.lastSlot = slot;
    this.count += 1;
    return true;
  }

  /** The weighted average so far (the estimate of the coming rate); undefined before any sample. */
  average(): Money | undefined {
    return this.weightSum === 0 ? undefined : this.weightedSum.div(this.weightSum);
  }

  /** Closes the interval, returns its average and starts sampling the next one. */
  settle(): IntervalPremium {
    const closed = { fundingTime: this.end, averagePremium: this.average(), samples: this.count };
    this.end += this.options.intervalMs;
    this.lastSlot = 0;
    this.count = 0;
    this.weightedSum = new Money(0);
    this.weightSum = 0;
    return closed;
  }

  /** Settles every interval whose funding time is at or before `time` (several after downtime). */
  settleDue(time: number): IntervalPremium[] {
    const out: IntervalPremium[] = [];
    while (this.end <= time) out.push(this.settle());
    return out;
  }

  toJSON(): PremiumSamplerState {
    return {
      v: PREMIUM_SAMPLER_STATE_VERSION,
      intervalMs: this.options.intervalMs,
      cadenceMs: this.options.cadenceMs,
      fundingTime: this.end,
      lastSlot: this.lastSlot,
      samples: this.count,
      weightedSum: this.weightedSum.toFixed(),
      weightSum: this.weightSum,
    };
  }

  /** Restores a sampler from `toJSON()`; throws on another version or an inconsistent state. */
  static fromJSON(input: unknown): PremiumSampler {
    const s = stateSchema.parse(input);
    const n = slotsOf(s);
    if (s.fundingTime % s.intervalMs !== 0) throw new RangeError('fundingTime is not a funding time');
    const empty = s.samples === 0;
    if (
      s.lastSlot > n ||
      s.samples > s.lastSlot ||
      s.weightSum > (s.lastSlot * (s.lastSlot + 1)) / 2 ||
      empty !== (s.weightSum === 0) ||
      empty !== (s.lastSlot === 0) ||
      (empty && !new Money(s.weightedSum).isZero())
    )
      throw new RangeError('inconsistent premium sampler state');
    const o = { intervalMs: s.intervalMs, cadenceMs: s.cadenceMs };
    return new PremiumSampler(o, s.fundingTime, s.lastSlot, s.samples, new Money(s.weightedSum), s.weightSum);
  }
}
