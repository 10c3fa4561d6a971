import { Money } from '@perp/domain';

/**
 * Decimal strings <-> the book's integers (price ticks, quantity lots). The shard converts once, at
 * the edge: commands on the way in, events and replies on the way out.
 */

/** A step such as "0.001" as an integer and a scale (1, 3); undefined for another notation. */
const stepParts = new Map<string, { units: number; scale: number } | undefined>();
function partsOf(step: string): { units: number; scale: number } | undefined {
  if (stepParts.has(step)) return stepParts.get(step);
  const m = /^(\d+)(?:\.(\d+))?$/.exec(step);
  const parts = m ? { units: Number(m[1]! + (m[2] ?? '')), scale: (m[2] ?? '').length } : undefined;
  stepParts.set(step, parts && Number.isSafeInteger(parts.units) ? parts : undefined);
  return stepParts.get(step);
}

/**
 * A decimal string in steps; a value off the step grid gives a fraction, which the book refuses.
 * Plain decimals with no more places than the step take an exact integer path (every order of a
 * replay converts two); anything else goes through Money.
 */
export function toSteps(value: string, step: string): number {
  const parts = partsOf(step);
  const m = parts && /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (parts && m && (m[2] ?? '').length <= parts.scale && parts.units > 0) {
    const units = Number(m[1]! + (m[2] ?? '').padEnd(parts.scale, '0'));
    if (Number.isSafeInteger(units) && units % parts.units === 0) return units / parts.units;
  }
  const n = new Money(value).div(step);
  return n.isFinite() ? n.toNumber() : Number.NaN;
}

/**
 * Steps as a decimal string with the market's precision (prices and quantities on the wire).
 * Every event of a replay formats several: exact integer arithmetic when the product is a safe
 * integer and needs no rounding, Money otherwise (same result either way).
 */
export function fromSteps(steps: number, step: string, decimals: number): string {
  const parts = partsOf(step);
  const units = parts ? steps * parts.units : Number.NaN;
  if (!parts || parts.scale > decimals || !Number.isSafeInteger(units))
    return new Money(steps).times(step).toFixed(decimals);
  const digits = String(Math.abs(units)).padStart(parts.scale + 1, '0');
  const whole = digits.slice(0, digits.length - parts.scale);
  const fraction = digits.slice(digits.length - parts.scale).padEnd(decimals, '0');
  return `${units < 0 ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}

/** Steps as a plain decimal string without trailing zeros (figures in refusal details). */
export function stepsValue(steps: number, step: string): string {
  return new Money(steps).times(step).toFixed();
}

/** A limit such as an open-interest cap in whole steps, rounded down as the book holds it. */
export function wholeSteps(value: string, step: string): number {
  return Math.floor(new Money(value).div(step).toNumber());
}
