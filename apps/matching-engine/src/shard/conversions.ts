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
  // Every event and reply renders several of these: integer maths when exact (no rounding needed
  // and within 2^53), else decimals.
  const s = stepOf(step);
  if (s && decimals >= s.scale && Number.isSafeInteger(steps)) {
    const units = steps * s.units;
    if (Number.isSafeInteger(units)) return scaled(units, s.scale, decimals);
  }
  return new Money(steps).times(step).toFixed(decimals);
}

/** A step `units × 10^-scale` (e.g. '0.25': 25, 2); undefined for a form other than plain digits. */
interface ParsedStep {
  units: number;
  scale: number;
}
const STEPS = new Map<string, ParsedStep | undefined>();
const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

function stepOf(step: string): ParsedStep | undefined {
  if (STEPS.has(step)) return STEPS.get(step);
  let parsed: ParsedStep | undefined;
  if (PLAIN_DECIMAL.test(step)) {
    const dot = step.indexOf('.');
    const scale = dot < 0 ? 0 : step.length - dot - 1;
    const units = Number(dot < 0 ? step : step.slice(0, dot) + step.slice(dot + 1));
    if (Number.isSafeInteger(units)) parsed = { units, scale };
  }
  STEPS.set(step, parsed);
  return parsed;
}

/** `units × 10^-scale` written with `decimals` (≥ scale) digits after the point. */
function scaled(units: number, scale: number, decimals: number): string {
  const digits = String(Math.abs(units)).padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).padEnd(decimals, '0');
  return (units < 0 ? '-' : '') + whole + (decimals > 0 ? `.${fraction}` : '');
}

/** Steps as a plain decimal string without trailing zeros (figures in refusal details). */
export function stepsValue(steps: number, step: string): string {
  return new Money(steps).times(step).toFixed();
}

/** A limit such as an open-interest cap in whole steps, rounded down as the book holds it. */
export function wholeSteps(value: string, step: string): number {
  return Math.floor(new Money(value).div(step).toNumber());
}
