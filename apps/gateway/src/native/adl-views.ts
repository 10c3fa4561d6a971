import { ADL_QUANTILES, type AdlSummary } from '@perp/contracts';
import type { Market } from '@perp/domain';
import type { ForceOrderEntity } from '@perp/persistence';

/** The clearance fee rate a liquidation pays the insurance fund (exchangeInfo's `liquidationFee`). */
export const LIQUIDATION_FEE_RATE = '0.0125';

/** Quantile buckets first in line first (5 … 1): the order a front end draws them in. */
const FIRST_IN_LINE = [...ADL_QUANTILES].reverse();

/**
 * Public rankings: how many positions each quantile holds per side. No addresses and no sizes:
 * who holds which quantile is the holder's own business (GET /fapi/v1/adlQuantile tells them).
 */
export function adlRankingsView(symbol: string, s: AdlSummary) {
  const buckets = (counts: number[]) =>
    FIRST_IN_LINE.map((quantile) => ({ quantile, positions: counts[quantile - 1] ?? 0 }));
  return { symbol, long: buckets(s.long), short: buckets(s.short), update_time: s.time };
}

/** The deleveraged position's side: a BUY close closed a short. */
const positionSide = (side: string) => (side === 'BUY' ? ('SHORT' as const) : ('LONG' as const));

/** A public ADL event: what happened at which price, not to whom. */
export function adlEventView(f: ForceOrderEntity) {
  return {
    symbol: f.symbol,
    side: f.side,
    position_side: positionSide(f.side),
    price: f.price, // an ADL close: the bankruptcy price, at the market's precision
    quantity: f.executedQty,
    time: f.updateTime,
  };
}

/** One of the caller's ADL closes (native history). */
export function adlHistoryItemView(f: ForceOrderEntity) {
  return {
    order_id: f.orderId,
    symbol: f.symbol,
    side: f.side,
    position_side: positionSide(f.side),
    price: f.price, // an ADL close: the bankruptcy price, at the market's precision
    quantity: f.executedQty,
    time: f.updateTime,
  };
}

const QUANTILE_TEXT: Record<number, string> = {
  5: 'first in line: the highest ranking scores of the side (top 20 %)',
  4: 'the next 20 % of ranking scores',
  3: 'the middle 20 %',
  2: 'the next 20 %',
  1: 'last in line: the lowest 20 %, losing positions included',
};

/** How ranking, quantiles, liquidation and ADL work on the market, with its own numbers. */
export function adlConfigView(market: Market) {
  let floor = '0';
  return {
    symbol: market.symbol,
    ranking:
      'Each side’s positions are ranked by score = profit ratio x effective leverage (Binance’s ' +
      'order; negative for a losing position); the highest score is deleveraged first, ties by address.',
    quantiles: FIRST_IN_LINE.map((quantile) => ({ quantile, description: QUANTILE_TEXT[quantile]! })),
    update: 'Scores are recomputed by the risk shards on every mark price; the engine ranks them per symbol.',
    close_price:
      'The part of a liquidation the book cannot fill at the bankruptcy price or better (or the ' +
      'insurance fund cannot cover) closes opposite positions in ranking order at the bankruptcy price.',
    liquidation_fee_rate: LIQUIDATION_FEE_RATE,
    maintenance_margin_brackets: market.maintenanceBrackets.map((b, i) => {
      const row = {
        bracket: i + 1,
        notional_floor: floor,
        notional_cap: b.notionalCap,
        maintenance_margin_rate: b.maintMarginRatio,
        max_leverage: b.maxLeverage,
        cum: b.cum,
      };
      floor = b.notionalCap;
      return row;
    }),
  };
}
