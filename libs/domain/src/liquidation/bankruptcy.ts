import type { Side } from '../account/order';
import { signedCost, type AccountPosition } from '../account/position';
import { ceilTo, SETTLEMENT_DECIMALS, ZERO } from '../account/rounding';
import { Money } from '../money/money';

/**
 * Liquidation clearance fee: 1.25 % of the closed notional at the fill price (exchangeInfo's
 * `liquidationFee` 0.0125), paid by the liquidated account to the insurance fund instead of a taker
 * commission, capped by what the account (or the isolated position) has left after the close.
 */
export const LIQUIDATION_FEE_RATE = new Money('0.0125');

/** The side of the order that closes a position: SELL closes a long. */
export function closingSide(position: AccountPosition): Side {
  return position.size.gt(0) ? 'SELL' : 'BUY';
}

/** `price` on the tick grid, rounded down ('down') or up ('up'); never below one tick. */
export function toTick(price: Money, tickSize: string, mode: 'down' | 'up'): Money {
  const tick = new Money(tickSize);
  const steps = price.div(tick).integerValue(mode === 'down' ? Money.ROUND_FLOOR : Money.ROUND_CEIL);
  return Money.max(steps, new Money(1)).times(tick);
}

/**
 * The price at which the margin balance backing the position reaches zero, every other mark
 * unchanged: backing + size x P - signed cost = 0, where `backing` is that margin balance without
 * this position's unrealized PnL (cross: cross wallet + the other cross positions' PnL; isolated:
 * the position's margin + collateral). The price does not depend on how much is closed: closing at P
 * realizes what P values the rest at. Rounded to the tick so the account is never under-charged:
 * down for a long (it sells), up for a short (it buys); one tick at least.
 */
export function bankruptcyPrice(position: AccountPosition, backing: Money, tickSize: string): Money {
  const exact = signedCost(position).minus(backing).div(position.size);
  return toTick(exact, tickSize, position.size.gt(0) ? 'down' : 'up');
}

/**
 * The liquidation order's limit: the bankruptcy price moved against the account as far as
 * `insurance` can pay the difference on `qty` (the insurance fund pays what a fill beyond the
 * bankruptcy price costs), rounded back toward the bankruptcy price so the fund can always pay.
 * With nothing in the fund, the bankruptcy price itself.
 */
export function insuredLimitPrice(
  side: Side,
  bankruptcy: Money,
  qty: Money,
  insurance: Money,
  tickSize: string,
): Money {
  if (!insurance.gt(0) || !qty.gt(0)) return bankruptcy;
  const room = insurance.div(qty);
  return side === 'SELL'
    ? Money.min(bankruptcy, toTick(bankruptcy.minus(room), tickSize, 'up'))
    : Money.max(bankruptcy, toTick(bankruptcy.plus(room), tickSize, 'down'));
}

/**
 * What the insurance fund may have to pay for a liquidation order at `limit`: its distance beyond
 * the bankruptcy price times the quantity (0 at the bankruptcy price).
 */
export function insuranceReserve(side: Side, bankruptcy: Money, limit: Money, qty: Money): Money {
  const gap = side === 'SELL' ? bankruptcy.minus(limit) : limit.minus(bankruptcy);
  return Money.max(ZERO, gap).times(qty);
}

/** Clearance fee of a liquidation fill: qty x price x rate rounded up to 8 decimals, at most `cap`. */
export function clearanceFee(qty: Money, price: Money, cap: Money, rate = LIQUIDATION_FEE_RATE): Money {
  const fee = ceilTo(qty.abs().times(price).times(rate), SETTLEMENT_DECIMALS);
  return Money.max(ZERO, Money.min(fee, cap));
}
