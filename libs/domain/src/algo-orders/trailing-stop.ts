import { Money } from '../money/money';

const ONE = new Money(1);
export const MIN_CALLBACK_RATE = new Money('0.1');
export const MAX_CALLBACK_RATE = new Money('10');

/** callbackRate is a percent between 0.1 and 10 (both included). */
export function isValidCallbackRate(rate: Money): boolean {
  return rate.isFinite() && rate.gte(MIN_CALLBACK_RATE) && rate.lte(MAX_CALLBACK_RATE);
}

/**
 * A trailing stop's progress. A SELL protects a long: it activates once the mark is at or above
 * activatePrice, then follows the highest mark and fires when the mark falls callbackRate % below
 * it. A BUY mirrors it (activates at or below, follows the lowest, fires callbackRate % above).
 */
export interface TrailingStop {
  side: 'BUY' | 'SELL';
  activatePrice: Money;
  /** Percent. */
  callbackRate: Money;
  /** The extreme mark since activation; undefined until activated. */
  extreme?: Money;
}

/** The price at which an activated trailing stop fires. */
export function trailingTriggerPrice(t: TrailingStop): Money | undefined {
  if (!t.extreme) return undefined;
  const rate = t.callbackRate.div(100);
  return t.side === 'SELL' ? t.extreme.times(ONE.minus(rate)) : t.extreme.times(ONE.plus(rate));
}

/**
 * One mark applied to a trailing stop: the state after it and whether it fires. Activation and the
 * new extreme count with this mark, so a mark that activates cannot also fire (callbackRate > 0).
 */
export function trackTrailingStop(t: TrailingStop, mark: Money): { state: TrailingStop; fire: boolean } {
  const sell = t.side === 'SELL';
  let extreme = t.extreme;
  if (!extreme) {
    const reached = sell ? mark.gte(t.activatePrice) : mark.lte(t.activatePrice);
    if (!reached) return { state: t, fire: false };
    extreme = mark;
  } else if (sell ? mark.gt(extreme) : mark.lt(extreme)) extreme = mark;
  const state = extreme === t.extreme ? t : { ...t, extreme };
  const trigger = trailingTriggerPrice(state)!;
  return { state, fire: sell ? mark.lte(trigger) : mark.gte(trigger) };
}
