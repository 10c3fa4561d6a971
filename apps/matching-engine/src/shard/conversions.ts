import { Money } from '@perp/domain';

/**
 * Decimal strings <-> the book's integers (price ticks, quantity lots). The shard converts once, at
 * the edge: commands on the way in, events and replies on the way out.
 */

/** A decimal string in steps; a value off the step grid gives a fraction, which the book refuses. */
export function toSteps(value: string, step: string): number {
  const n = new Money(value).div(step);
  return n.isFinite() ? n.toNumber() : Number.NaN;
}

/** Steps as a decimal string with the market's precision (prices and quantities on the wire). */
export function fromSteps(steps: number, step: string, decimals: number): string {
  return new Money(steps).times(step).toFixed(decimals);
}

/** Steps as a plain decimal string without trailing zeros (figures in refusal details). */
export function stepsValue(steps: number, step: string): string {
  return new Money(steps).times(step).toFixed();
}

/** A limit such as an open-interest cap in whole steps, rounded down as the book holds it. */
export function wholeSteps(value: string, step: string): number {
  return Math.floor(new Money(value).div(step).toNumber());
}
