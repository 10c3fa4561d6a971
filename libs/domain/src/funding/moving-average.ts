import { z } from 'zod';
import { Money, parseDecimal } from '../money/money';

export const MOVING_AVERAGE_STATE_VERSION = 1;

const stateSchema = z
  .object({
    v: z.literal(MOVING_AVERAGE_STATE_VERSION),
    windowMs: z.number().int().positive(),
    samples: z.array(
      z.tuple([
        z.number().int(),
        z.string().refine((s) => parseDecimal(s) !== undefined, 'a decimal string'),
      ]),
    ),
  })
  .strict();

/** Plain JSON state of a moving average: the samples in the window, oldest first. */
export type MovingAverageState = z.infer<typeof stateSchema>;

/**
 * The arithmetic mean of the samples of the last `windowMs`: those with a time in
 * (time − window, time]. Samples come in time order (a sample not after the last is ignored); the
 * running sum is exact (Money adds without rounding), only the mean divides (18 places, down).
 * Used for the mark price's basis: index + mean of (mid − index) sampled each second over minutes.
 */
export class MovingAverage {
  private times: number[] = [];
  private values: Money[] = [];
  private head = 0;
  private sum = new Money(0);

  constructor(readonly windowMs: number) {
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0)
      throw new RangeError(`window must be a positive integer of ms: ${windowMs}`);
  }

  /** Samples held (some may be outside the window of a later time until the next add). */
  get size(): number {
    return this.times.length - this.head;
  }

  /** Time of the newest sample; undefined when none is held. */
  get lastTime(): number | undefined {
    return this.size > 0 ? this.times[this.times.length - 1] : undefined;
  }

  /** Adds the sample and returns true; false when `time` is not after the last sample's. */
  add(time: number, value: Money): boolean {
    if (!value.isFinite()) throw new RangeError('moving average sample is not a finite decimal');
    if (this.size > 0 && time <= this.times[this.times.length - 1]) return false;
    this.evict(time);
    this.times.push(time);
    this.values.push(value);
    this.sum = this.sum.plus(value);
    return true;
  }

  /**
   * The mean of the samples in (time − window, time]; undefined when there is none. `time` must
   * not be before the last sample (the average is of the past, never of later samples).
   */
  average(time: number): Money | undefined {
    if (this.size > 0 && time < this.times[this.times.length - 1])
      throw new RangeError(`average at ${time} is before the last sample`);
    let sum = this.sum;
    let i = this.head;
    for (; i < this.times.length && this.times[i] <= time - this.windowMs; i += 1)
      sum = sum.minus(this.values[i]);
    const n = this.times.length - i;
    return n === 0 ? undefined : sum.div(n);
  }

  toJSON(): MovingAverageState {
    const samples: [number, string][] = [];
    for (let i = this.head; i < this.times.length; i += 1)
      samples.push([this.times[i], this.values[i].toFixed()]);
    return { v: MOVING_AVERAGE_STATE_VERSION, windowMs: this.windowMs, samples };
  }

  /** Restores from `toJSON()`; throws on another version or samples out of time order. */
  static fromJSON(input: unknown): MovingAverage {
    const s = stateSchema.parse(input);
    const ma = new MovingAverage(s.windowMs);
    for (const [t, v] of s.samples)
      if (!ma.add(t, new Money(v))) throw new RangeError('moving average samples out of time order');
    return ma;
  }

  private evict(time: number): void {
    while (this.head < this.times.length && this.times[this.head] <= time - this.windowMs) {
      this.sum = this.sum.minus(this.values[this.head]);
      this.head += 1;
    }
    if (this.head > 64 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.values = this.values.slice(this.head);
      this.head = 0;
    }
  }
}
