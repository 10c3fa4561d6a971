import type { Money } from '../money/money';

export type Side = 'BUY' | 'SELL';

/** Order types of `/fapi/v1/order`, aliases (STOP_LIMIT, TAKE_PROFIT_LIMIT) already resolved. */
export const ORDER_TYPES = [
  'LIMIT',
  'MARKET',
  'STOP',
  'STOP_MARKET',
  'TAKE_PROFIT',
  'TAKE_PROFIT_MARKET',
] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** +1 for BUY, -1 for SELL: the sign a fill of this side adds to the position size. */
export function sideSign(side: Side): 1 | -1 {
  return side === 'BUY' ? 1 : -1;
}

/** Which price an order's notional, margin and quoteOrderQty conversion are measured at. */
export type ReferencePriceSource = 'price' | 'stopPrice' | 'markPrice';

export function referencePriceSource(type: OrderType): ReferencePriceSource {
  switch (type) {
    case 'LIMIT':
    case 'STOP':
    case 'TAKE_PROFIT':
      return 'price';
    case 'STOP_MARKET':
    case 'TAKE_PROFIT_MARKET':
      return 'stopPrice';
    case 'MARKET':
      return 'markPrice';
  }
}

/** An order that passed pre-trade and holds margin until it fills, is cancelled, expires or is rejected. */
export interface AccountOrder {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: Side;
  type: OrderType;
  reduceOnly: boolean;
  /** The reference price the margin was frozen at. */
  referencePrice: Money;
  /** Normalised (lot-floored) quantity accepted at placement. */
  quantity: Money;
  /** Changed only through `Account.fillOrder`, which keeps the account's totals. */
  readonly remaining: Money;
  /** Leverage clamped to the market maximum at placement; fills open the position at it. */
  leverage: number;
  /** Margin still frozen for the remaining quantity (changed only through `Account.fillOrder`). */
  readonly frozen: Money;
}
