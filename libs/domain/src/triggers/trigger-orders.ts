import { checkOrderShape, type PreTradeRequest } from '../account/pre-trade';
import type { Account, MarkPrices } from '../account/account';
import { PRE_TRADE_REJECT_REASONS, reject, type AccountRejection } from '../account/reasons';
import type { Market } from '../markets/market';
import type { Money } from '../money/money';

export const TRIGGER_ORDER_TYPES = ['STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET'] as const;
export type TriggerOrderType = (typeof TRIGGER_ORDER_TYPES)[number];

export function isTriggerOrderType(type: string): type is TriggerOrderType {
  return (TRIGGER_ORDER_TYPES as readonly string[]).includes(type);
}

/** RISE: fires once mark >= stopPrice; FALL: once mark <= stopPrice. */
export type TriggerDirection = 'RISE' | 'FALL';

/** As Binance: a stop buys on a rise and sells on a fall; a take-profit buys on a fall and sells on a rise. */
export function triggerDirection(type: TriggerOrderType, side: 'BUY' | 'SELL'): TriggerDirection {
  const stop = type === 'STOP' || type === 'STOP_MARKET';
  return stop === (side === 'BUY') ? 'RISE' : 'FALL';
}

export function isTriggered(direction: TriggerDirection, stopPrice: Money, mark: Money): boolean {
  return direction === 'RISE' ? mark.gte(stopPrice) : mark.lte(stopPrice);
}

/** What the order becomes when it fires: STOP and TAKE_PROFIT a LIMIT at their price, the others a MARKET. */
export function triggeredOrderType(type: TriggerOrderType): 'LIMIT' | 'MARKET' {
  return type === 'STOP' || type === 'TAKE_PROFIT' ? 'LIMIT' : 'MARKET';
}

export const TRIGGER_REJECT_REASONS = [...PRE_TRADE_REJECT_REASONS, 'WOULD_TRIGGER_IMMEDIATELY'] as const;
export type TriggerRejectReason = (typeof TRIGGER_REJECT_REASONS)[number];

export interface TriggerOrderAccepted {
  ok: true;
  /** Lot-floored quantity, fixed at placement (quoteOrderQty converted at price or stopPrice). */
  quantity: Money;
  direction: TriggerDirection;
}

/**
 * New Order rule 8: a trigger order passes the order's shape rules at its reference price (price,
 * or stopPrice for the MARKET forms) and must not be satisfied by the current mark price.
 * No margin is frozen until it fires; the derived order then goes through pre-trade like any other.
 */
export function checkTriggerOrder(
  account: Account,
  market: Market,
  req: PreTradeRequest & { type: TriggerOrderType; stopPrice: Money },
  marks: MarkPrices,
): TriggerOrderAccepted | AccountRejection<TriggerRejectReason> {
  const shape = checkOrderShape(account, market, req, marks);
  if (!shape.ok) return shape;
  if (!req.stopPrice.isFinite() || !req.stopPrice.gt(0))
    return reject('INVALID_PRICE', 'stopPrice must be above 0');
  const mark = marks(market.symbol);
  if (!mark || !mark.gt(0))
    return reject('NO_MARK_PRICE', `no mark price for ${market.symbol} to evaluate the trigger against`);
  const direction = triggerDirection(req.type, req.side);
  if (isTriggered(direction, req.stopPrice, mark))
    return reject(
      'WOULD_TRIGGER_IMMEDIATELY',
      `mark price ${mark.toFixed()} is already ${direction === 'RISE' ? 'at or above' : 'at or below'} stopPrice ${req.stopPrice.toFixed()}: the order would trigger at once`,
    );
  return { ok: true, quantity: shape.quantity, direction };
}
