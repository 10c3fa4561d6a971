import type { Account, MarketLookup, MarkPrices, PositionView } from '../account/account';
import { maintenanceBracketFor, maintenanceMargin } from '../account/margin';
import { isIsolated } from '../account/margin-mode';
import type { Side } from '../account/order';
import { entryPrice, positionNotional, unrealizedPnl, type AccountPosition } from '../account/position';
import { ZERO } from '../account/rounding';
import type { Market } from '../markets/market';
import { Money } from '../money/money';
import { bankruptcyPrice, closingSide, insuredLimitPrice, LIQUIDATION_FEE_RATE } from './bankruptcy';

/** Binance's MARGIN_CALL: the margin ratio (maintenance / margin balance) reached 80 %. */
export const MARGIN_CALL_LEVEL = new Money('0.8');

export type LiquidationMarginMode = 'CROSS' | 'ISOLATED';

/**
 * The margin of what liquidates as one: a cross account (every cross position on the cross
 * margin balance; UNIFIED counts as cross) or one isolated position (its margin + collateral).
 */
export interface MarginState {
  marginMode: LiquidationMarginMode;
  /** Isolated: the position's symbol; cross: undefined. */
  symbol?: string;
  /** Cross: wallet - isolated margin + cross unrealized PnL; isolated: margin + collateral + PnL. */
  marginBalance: Money;
  maintenance: Money;
}

/**
 * The account's margin states: one for a cross account with positions, one per isolated position
 * (`symbol` given: only that one). Computed straight from the positions, one pass, because every
 * mark runs it for every holder of the symbol.
 */
export function marginStates(
  account: Account,
  marks: MarkPrices,
  markets: MarketLookup,
  symbol?: string,
): MarginState[] {
  const positions = account.positions();
  if (positions.length === 0) return [];
  if (isIsolated(account.marginMode))
    return positions
      .filter((p) => symbol === undefined || p.symbol === symbol)
      .map((p) => {
        const mark = marks(p.symbol) ?? entryPrice(p);
        const market = markets(p.symbol);
        const maintenance = market ? maintenanceMargin(market, positionNotional(p, mark)) : ZERO;
        const balance = p.margin.plus(p.collateral).plus(unrealizedPnl(p, mark));
        return {
          marginMode: 'ISOLATED',
          symbol: p.symbol,
          marginBalance: balance,
          maintenance,
        };
      });
  let balance = account.walletBalance;
  let maintenance = ZERO;
  for (const p of positions) {
    const mark = marks(p.symbol) ?? entryPrice(p);
    balance = balance.plus(unrealizedPnl(p, mark));
    const market = markets(p.symbol);
    if (market) maintenance = maintenance.plus(maintenanceMargin(market, positionNotional(p, mark)));
  }
  return [{ marginMode: 'CROSS', marginBalance: balance, maintenance }];
}

/** The liquidation trigger: margin balance at or below the maintenance margin (ratio >= 100 %). */
export function isLiquidatable(s: MarginState): boolean {
  return s.maintenance.gt(0) && s.marginBalance.lte(s.maintenance);
}

/** The margin ratio (maintenance / margin balance) at or above the call level, or no balance left. */
export function isMarginCall(s: MarginState): boolean {
  if (!s.maintenance.gt(0)) return false;
  return !s.marginBalance.gt(0) || s.maintenance.gte(s.marginBalance.times(MARGIN_CALL_LEVEL));
}

/**
 * How much of a position one liquidation step closes. In the first bracket: all of it. Above it:
 * the fewest lots that bring the notional (at the mark) to the cap of a lower bracket, trying the
 * next lower bracket first, such that the margin balance minus the step's clearance fee is then
 * above the account's maintenance margin; when no lower bracket does, all of it. Between two
 * bracket edges the margin left moves linearly with the quantity, so testing the edges is enough.
 * A step that leaves the account liquidatable (fills away from the mark) is followed by another
 * once it is done (the risk shard checks again).
 */
export function liquidationStep(
  market: Market,
  position: AccountPosition,
  mark: Money,
  marginBalance: Money,
  maintenanceTotal: Money,
  feeRate: Money = LIQUIDATION_FEE_RATE,
): Money {
  const abs = position.size.abs();
  const notional = abs.times(mark);
  const brackets = market.maintenanceBrackets;
  const index = brackets.indexOf(maintenanceBracketFor(market, notional));
  if (index <= 0 || !mark.gt(0)) return abs;
  const lot = new Money(market.lotSize);
  const others = maintenanceTotal.minus(maintenanceMargin(market, notional));
  for (let k = index - 1; k >= 0; k--) {
    const cap = new Money(brackets[k].notionalCap);
    const qty = notional.minus(cap).div(mark).div(lot).integerValue(Money.ROUND_CEIL).times(lot);
    if (qty.gte(abs)) break;
    const after = others.plus(maintenanceMargin(market, abs.minus(qty).times(mark)));
    const fee = qty.times(mark).times(feeRate);
    if (marginBalance.minus(fee).gt(after)) return qty;
  }
  return abs;
}

/** A liquidation order to send: what the risk shard puts in `liquidation.place`. */
export interface LiquidationPlan {
  symbol: string;
  marginMode: LiquidationMarginMode;
  side: Side;
  quantity: Money;
  bankruptcyPrice: Money;
  limitPrice: Money;
  markPrice: Money;
}

/**
 * The next liquidation step of a triggered margin state. Cross: the position with the largest
 * maintenance margin first (then by symbol), so each step frees the most maintenance; isolated:
 * the state's own position. The limit is the bankruptcy price moved as far as `insurance` (the
 * fund's share available to this liquidation, <= 0 for none) can pay the difference.
 * Undefined when the state holds no position with a known market.
 */
export function planLiquidation(
  account: Account,
  state: MarginState,
  marks: MarkPrices,
  markets: MarketLookup,
  insurance: Money,
): LiquidationPlan | undefined {
  const views = account
    .positionViews(marks, markets)
    .filter((v) => markets(v.symbol) && (state.symbol === undefined || v.symbol === state.symbol));
  if (views.length === 0) return undefined;
  const first = views.reduce((best: PositionView, v) =>
    v.maintenanceMargin.gt(best.maintenanceMargin) ||
    (v.maintenanceMargin.eq(best.maintenanceMargin) && v.symbol < best.symbol)
      ? v
      : best,
  );
  const market = markets(first.symbol)!;
  const position = account.position(first.symbol)!;
  const backing = state.marginBalance.minus(first.unrealizedPnl);
  const bankruptcy = bankruptcyPrice(position, backing, market.tickSize);
  const side = closingSide(position);
  const quantity = liquidationStep(market, position, first.markPrice, state.marginBalance, state.maintenance);
  return {
    symbol: first.symbol,
    marginMode: state.marginMode,
    side,
    quantity,
    bankruptcyPrice: bankruptcy,
    limitPrice: insuredLimitPrice(side, bankruptcy, quantity, insurance, market.tickSize),
    markPrice: first.markPrice,
  };
}
