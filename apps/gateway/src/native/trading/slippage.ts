import { Money } from '@perp/domain';

const ZERO = new Money(0);

/** A price level of the side a market order takes from (asks for a buy, bids for a sell). */
export interface BookLevel {
  price: Money;
  qty: Money;
}

export interface FillSimulation {
  /** Quantity the given levels can fill. */
  filled: Money;
  /** Quantity left after the given levels. */
  remaining: Money;
  /** Volume-weighted price of the filled part; undefined when nothing fills. */
  averagePrice?: Money;
  /** Price of the last level touched; undefined when nothing fills. */
  worstPrice?: Money;
}

/** Walks `levels` (best first) for `quantity`, as the engine's matcher would. */
export function simulateMarketFill(levels: readonly BookLevel[], quantity: Money): FillSimulation {
  let remaining = quantity;
  let filled = ZERO;
  let quote = ZERO;
  let worstPrice: Money | undefined;
  for (const level of levels) {
    if (!remaining.gt(0)) break;
    if (!level.qty.gt(0)) continue;
    const take = Money.min(level.qty, remaining);
    filled = filled.plus(take);
    quote = quote.plus(take.times(level.price));
    remaining = remaining.minus(take);
    worstPrice = level.price;
  }
  return {
    filled,
    remaining,
    averagePrice: filled.gt(0) ? quote.div(filled) : undefined,
    worstPrice,
  };
}

/** How far `price` is from `mark` against the taker, as a fraction of mark (negative = better than mark). */
export function adverseSlippage(side: 'BUY' | 'SELL', mark: Money, price: Money): Money {
  const diff = side === 'BUY' ? price.minus(mark) : mark.minus(price);
  return diff.div(mark);
}

export interface SlippageInput {
  side: 'BUY' | 'SELL';
  quantity: Money;
  mark: Money;
  /** A fraction: "0.01" allows the worst fill 1 % beyond the mark price. */
  maxSlippage: Money;
  /** The opposite side's levels that can be seen, best first. */
  levels: readonly BookLevel[];
  /** True when `levels` are the whole side; false when only its top is known (deeper levels exist unseen). */
  completeDepth: boolean;
}

export type SlippageVerdict =
  | { ok: true; simulation: FillSimulation; slippage?: Money }
  | { ok: false; simulation: FillSimulation; slippage?: Money; message: string };

/**
 * The pre-trade slippage check of a native market order: simulates the fill against the levels
 * and refuses when the worst expected price is more than `maxSlippage` beyond the mark price.
 * When only the top of the book is visible and the order is larger than it, the worst price of the
 * rest cannot be bounded, so the order is refused too (the check never guesses in the user's
 * disfavour). A side known to be empty fills nothing, so it has no slippage to refuse.
 */
export function checkSlippage(input: SlippageInput): SlippageVerdict {
  const simulation = simulateMarketFill(input.levels, input.quantity);
  const slippage =
    simulation.worstPrice === undefined
      ? undefined
      : adverseSlippage(input.side, input.mark, simulation.worstPrice);
  if (slippage !== undefined && slippage.gt(input.maxSlippage))
    return {
      ok: false,
      simulation,
      slippage,
      message:
        `expected worst fill price ${simulation.worstPrice!.toFixed()} is ${pct(slippage)} from the mark ` +
        `price ${input.mark.toFixed()}, above max_slippage ${pct(input.maxSlippage)}`,
    };
  if (simulation.remaining.gt(0) && !input.completeDepth)
    return {
      ok: false,
      simulation,
      slippage,
      message:
        `only ${simulation.filled.toFixed()} of ${input.quantity.toFixed()} can be priced from the visible ` +
        `top of the book; the rest could fill beyond max_slippage ${pct(input.maxSlippage)}`,
    };
  return { ok: true, simulation, slippage };
}

function pct(fraction: Money): string {
  return `${fraction.times(100).decimalPlaces(4, Money.ROUND_HALF_UP).toFixed()}%`;
}
