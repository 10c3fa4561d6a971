import { isAboveZero, isBelowZero, Money } from '../money/money';
import { initialMargin } from './margin';
import { sideSign, type Side } from './order';
import { SETTLEMENT_DECIMALS, proRata, ZERO } from './rounding';

/**
 * A one-way (BOTH) position. The entry price is not stored: `cost` (the open notional still
 * carried, |size| x entry) is, so increases average exactly and a position's lifetime realized
 * PnL is exactly sum(sell notional) - sum(buy notional).
 */
export interface AccountPosition {
  /** Trade id of the fill that opened it (a flip opens a new position). */
  id: string;
  symbol: string;
  /** Signed base quantity: > 0 long, < 0 short; never zero (a flat position is removed). */
  size: Money;
  cost: Money;
  /** Initial margin held: each opening fill's notional / leverage, released pro rata on reduce. */
  margin: Money;
  /** Isolated mode only: collateral the user added (net of removals). */
  collateral: Money;
  /** Leverage of the latest opening fill. */
  leverage: number;
  openedAt: number;
}

export interface PositionTrade {
  symbol: string;
  side: Side;
  qty: Money;
  price: Money;
  leverage: number;
  tradeId: string;
  time: number;
}

export interface PositionTradeEffect {
  /** The position after the trade; undefined when it is flat. */
  position: AccountPosition | undefined;
  closedQty: Money;
  openedQty: Money;
  realizedPnl: Money;
  /** Position margin and isolated collateral freed by the closing part. */
  releasedMargin: Money;
  releasedCollateral: Money;
  /** Initial margin taken by the opening part. */
  addedMargin: Money;
}

/** cost / |size|: the average price the position was entered at. */
export function entryPrice(p: AccountPosition): Money {
  return p.cost.div(p.size.abs());
}

export function positionNotional(p: AccountPosition, markPrice: Money): Money {
  return p.size.abs().times(markPrice);
}

/** size x mark - signed cost: exact, so it sums to minus the signed costs over a zero-sum market. */
export function unrealizedPnl(p: AccountPosition, markPrice: Money): Money {
  return p.size.times(markPrice).minus(signedCost(p));
}

/** Signed cost: + for longs, - for shorts (what the clearing account is owed back). */
export function signedCost(p: AccountPosition): Money {
  return isBelowZero(p.size) ? p.cost.negated() : p.cost;
}

/** Base quantity a trade on `side` would close: the opposite position, capped at `qty`. */
export function positionClosingQty(position: AccountPosition | undefined, side: Side, qty: Money): Money {
  if (!position || position.size.isZero()) return ZERO;
  const opposite = sideSign(side) * (isBelowZero(position.size) ? -1 : 1) < 0;
  return opposite ? Money.min(position.size.abs(), qty) : ZERO;
}

/**
 * Applies one fill to a position: the closing part releases cost, margin and collateral pro rata
 * (the cost share rounded half-even to 8 decimals, the last close takes what is left), the
 * opening part adds its notional to the cost and its initial margin at the fill price.
 */
export function applyPositionTrade(
  position: AccountPosition | undefined,
  t: PositionTrade,
): PositionTradeEffect {
  if (!isAboveZero(t.qty) || !isAboveZero(t.price)) throw new Error('trade qty and price must be positive');
  const closedQty = positionClosingQty(position, t.side, t.qty);
  const openedQty = t.qty.minus(closedQty);
  let next = position;
  let realizedPnl = ZERO;
  let releasedMargin = ZERO;
  let releasedCollateral = ZERO;
  if (position && isAboveZero(closedQty)) {
    const abs = position.size.abs();
    const full = closedQty.eq(abs);
    const share = (x: Money, mode: 'down' | 'half-even'): Money =>
      full ? x : Money.min(x, proRata(x, closedQty, abs, SETTLEMENT_DECIMALS, mode));
    const releasedCost = share(position.cost, 'half-even');
    releasedMargin = share(position.margin, 'down');
    releasedCollateral = share(position.collateral, 'down');
    const exitValue = closedQty.times(t.price);
    realizedPnl = isAboveZero(position.size) ? exitValue.minus(releasedCost) : releasedCost.minus(exitValue);
    next = full
      ? undefined
      : {
          ...position,
          size: isAboveZero(position.size) ? position.size.minus(closedQty) : position.size.plus(closedQty),
          cost: position.cost.minus(releasedCost),
          margin: position.margin.minus(releasedMargin),
          collateral: position.collateral.minus(releasedCollateral),
        };
  }
  let addedMargin = ZERO;
  if (isAboveZero(openedQty)) {
    const notional = openedQty.times(t.price);
    addedMargin = initialMargin(notional, t.leverage);
    const delta = openedQty.times(sideSign(t.side));
    next = next
      ? {
          ...next,
          size: next.size.plus(delta),
          cost: next.cost.plus(notional),
          margin: next.margin.plus(addedMargin),
          leverage: t.leverage,
        }
      : {
          id: t.tradeId,
          symbol: t.symbol,
          size: delta,
          cost: notional,
          margin: addedMargin,
          collateral: ZERO,
          leverage: t.leverage,
          openedAt: t.time,
        };
  }
  return {
    position: next,
    closedQty,
    openedQty,
    realizedPnl,
    releasedMargin,
    releasedCollateral,
    addedMargin,
  };
}
