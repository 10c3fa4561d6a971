import type { MaintenanceBracket, Market } from '../markets/market';
import { parsedOnce } from '../markets/parsed-once';
import { isAboveZero, Money } from '../money/money';
import { divide, SETTLEMENT_DECIMALS, ZERO } from './rounding';

/** Buffer on the margin frozen for an order (spec: notional / leverage x 1.005). */
export const ORDER_MARGIN_BUFFER = new Money('1.005');

/** A bracket's figures parsed once (margin checks run them for every holder on every mark). */
const parsed = parsedOnce((b: MaintenanceBracket) => ({
  cap: new Money(b.notionalCap),
  ratio: new Money(b.maintMarginRatio),
  cum: new Money(b.cum),
}));

/** The bracket whose range holds `notional` (caps are inclusive); beyond the last cap, the last one. */
export function maintenanceBracketFor(market: Market, notional: Money): MaintenanceBracket {
  const abs = notional.abs();
  const brackets = market.maintenanceBrackets;
  return brackets.find((b) => abs.lte(parsed(b).cap)) ?? brackets[brackets.length - 1];
}

/** Maintenance margin of a position of this notional: notional x maintMarginRatio - cum. */
export function maintenanceMargin(market: Market, notional: Money): Money {
  const abs = notional.abs();
  if (abs.isZero()) return ZERO;
  const b = parsed(maintenanceBracketFor(market, abs));
  return abs.times(b.ratio).minus(b.cum);
}

/**
 * Maintenance / margin balance. A margin balance at or below zero with something to maintain is
 * Infinity (beyond any liquidation threshold); nothing to maintain is 0.
 */
export function marginRatio(maintenance: Money, marginBalance: Money): Money {
  if (maintenance.isZero()) return ZERO;
  if (!isAboveZero(marginBalance)) return new Money(Infinity);
  return maintenance.div(marginBalance);
}

/** Initial margin of a notional at a leverage, rounded up to 8 decimals (never under-margined). */
export function initialMargin(notional: Money, leverage: number): Money {
  return divide(notional.abs(), leverage, SETTLEMENT_DECIMALS, 'up');
}

/** Margin frozen for an order: notional / leverage x 1.005, rounded up to 8 decimals. */
export function orderMargin(notional: Money, leverage: number): Money {
  return divide(notional.abs().times(ORDER_MARGIN_BUFFER), leverage, SETTLEMENT_DECIMALS, 'up');
}

/** Leverage is an integer in [1, market max] (else INVALID_LEVERAGE). */
export function isValidLeverage(market: Market, leverage: number): boolean {
  return Number.isInteger(leverage) && leverage >= 1 && leverage <= market.maxLeverage;
}

/** The standing leverage clamped to the market's current maximum (which operators can lower). */
export function effectiveLeverage(market: Market, standing: number): number {
  return Math.max(1, Math.min(standing, market.maxLeverage));
}

/**
 * `maxNotionalValue` of the leverage response: the largest bracket cap whose maxLeverage allows
 * this leverage; 0 when no bracket does (a configuration whose market max exceeds every bracket).
 */
export function maxNotionalForLeverage(market: Market, leverage: number): Money {
  let max = ZERO;
  for (const b of market.maintenanceBrackets) if (b.maxLeverage >= leverage) max = new Money(b.notionalCap);
  return max;
}
