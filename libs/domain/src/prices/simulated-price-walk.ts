import { decimalsOf, Money } from '../money/money';

/**
 * mulberry32: a tiny 32-bit PRNG (one uint32 state, integer arithmetic only). Returns a function
 * giving the next uint32 in [0, 2^32). Same seed, same sequence, on every platform.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** The feed seed mixed with the symbol (FNV-1a), so each market walks its own stream. */
export function symbolSeed(seed: number, symbol: string): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < symbol.length; i++) {
    h ^= symbol.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Default largest step: about 2 basis points of the reference price, at least one tick. */
export const DEFAULT_STEP_BPS = 2;

export interface PriceWalkOptions {
  seed: number;
  symbol: string;
  /** The market's tick size (decimal string); every price is a positive multiple of it. */
  tickSize: string;
  /** Where the walk starts (decimal string); rounded down to a tick, at least one tick. */
  referencePrice: string;
  /** Largest move per step in ticks (default: DEFAULT_STEP_BPS of the reference, at least 1). */
  maxStepTicks?: number;
}

/**
 * A deterministic random walk of one market's index price, in integer ticks: each step moves
 * the price by a uniform whole number of ticks in [-maxStepTicks, +maxStepTicks], never below
 * one tick. The price after n steps depends only on (seed, symbol, tickSize, referencePrice,
 * maxStepTicks, n): no clock, no floats.
 */
export class SimulatedPriceWalk {
  readonly symbol: string;
  readonly tickSize: string;
  readonly referenceTicks: number;
  readonly maxStepTicks: number;
  private readonly decimals: number;
  private readonly random: () => number;
  private steps = 0;
  private current: number;

  constructor(options: PriceWalkOptions) {
    const tick = new Money(options.tickSize);
    if (!tick.isFinite() || !tick.gt(0)) throw new Error(`${options.symbol}: tickSize must be positive`);
    const reference = new Money(options.referencePrice).div(tick).integerValue(Money.ROUND_DOWN);
    if (!reference.isFinite() || !reference.lt(Number.MAX_SAFE_INTEGER / 2))
      throw new Error(`${options.symbol}: referencePrice is not a usable number of ticks`);
    this.symbol = options.symbol;
    this.tickSize = options.tickSize;
    this.referenceTicks = Math.max(1, reference.toNumber());
    const step = options.maxStepTicks ?? Math.floor((this.referenceTicks * DEFAULT_STEP_BPS) / 10_000);
    if (!Number.isSafeInteger(step) || step < 0) throw new Error('maxStepTicks must be a whole number');
    this.maxStepTicks = Math.max(1, Math.min(step, 0x7fffffff));
    this.decimals = decimalsOf(options.tickSize);
    this.random = mulberry32(symbolSeed(options.seed, options.symbol));
    this.current = this.referenceTicks;
  }

  /** Steps taken so far (0: the reference price). */
  get tick(): number {
    return this.steps;
  }

  /** The current price in ticks. */
  get ticks(): number {
    return this.current;
  }

  /** The current price as a decimal string with the market's precision. */
  get price(): string {
    return ticksToPrice(this.current, this.tickSize, this.decimals);
  }

  /** One step; returns the new price. */
  next(): string {
    const span = 2 * this.maxStepTicks + 1;
    const move = (this.random() % span) - this.maxStepTicks;
    this.current = Math.max(1, this.current + move);
    this.steps++;
    return this.price;
  }

  /** Steps until `tick` steps have been taken (no-op when already there); returns the price. */
  advanceTo(tick: number): string {
    while (this.steps < tick) this.next();
    return this.price;
  }
}

/** `ticks` x tickSize as a decimal string with `decimals` places. */
export function ticksToPrice(ticks: number, tickSize: string, decimals = decimalsOf(tickSize)): string {
  return new Money(tickSize).times(ticks).toFixed(decimals);
}

/** The first `count` prices of a walk after the reference (steps 1..count). */
export function simulatedPrices(options: PriceWalkOptions, count: number): string[] {
  const walk = new SimulatedPriceWalk(options);
  return Array.from({ length: count }, () => walk.next());
}
