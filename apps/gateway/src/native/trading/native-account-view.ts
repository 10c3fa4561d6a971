import type { AccountBalances, MarginMode, Money } from '@perp/domain';
import type { AccountSnapshot } from '../../fapi/account/account-reader';
import { amount, price, quantity } from '../../fapi/account/format';
import type { SymbolRisk } from '../../fapi/account/position-risk-view';

/** A ratio or other figure that may be infinite (margin ratio with no margin left): null then. */
function finite(x: Money): string | null {
  return x.isFinite() ? amount(x) : null;
}

export interface NativeBalancesView {
  asset: string;
  wallet_balance: string;
  available_balance: string;
  unrealized_pnl: string;
  margin_balance: string;
  position_margin: string;
  isolated_margin: string;
  order_margin: string;
  maintenance_margin: string;
  /** Cross maintenance / cross margin balance; null when that balance is not positive. */
  margin_ratio: string | null;
}

export interface NativePositionView {
  /** Trade id of the fill that opened it: the `{position_id}` of the collateral endpoints. */
  id: string;
  symbol: string;
  side: 'long' | 'short';
  /** Absolute base quantity. */
  size: string;
  entry_price: string;
  mark_price: string;
  /** Absolute value at the mark price (USDT). */
  notional: string;
  unrealized_pnl: string;
  leverage: number;
  margin_type: 'cross' | 'isolated';
  /** Initial margin the position holds. */
  margin: string;
  /** Isolated only: collateral added on top of the initial margin (0 on cross). */
  collateral: string;
  /** Isolated: margin + collateral; cross: 0. */
  isolated_margin: string;
  maintenance_margin: string;
  margin_ratio: string | null;
  liquidation_price: string;
  break_even_price: string;
}

export interface NativeAccountView {
  address: string;
  margin_mode: 'cross' | 'isolated' | 'unified';
  vip_tier: number;
  balances: NativeBalancesView;
  positions: NativePositionView[];
  open_orders: number;
  updated_at: string | null;
}

export function nativeMarginMode(mode: MarginMode): NativeAccountView['margin_mode'] {
  return mode.toLowerCase() as NativeAccountView['margin_mode'];
}

export function nativeBalances(b: AccountBalances, asset: string): NativeBalancesView {
  return {
    asset,
    wallet_balance: amount(b.walletBalance),
    available_balance: amount(b.availableBalance),
    unrealized_pnl: amount(b.unrealizedPnl),
    margin_balance: amount(b.marginBalance),
    position_margin: amount(b.positionMargin),
    isolated_margin: amount(b.isolatedMargin),
    order_margin: amount(b.orderMargin),
    maintenance_margin: amount(b.maintenanceMargin),
    margin_ratio: finite(b.marginRatio),
  };
}

/** A position row from the per-symbol risk figures (the domain's PositionView and SymbolMetrics). */
export function nativePosition(r: SymbolRisk): NativePositionView | undefined {
  const v = r.position;
  if (!v) return undefined;
  return {
    id: v.id,
    symbol: v.symbol,
    side: v.size.lt(0) ? 'short' : 'long',
    size: quantity(v.size.abs(), r.market),
    entry_price: price(v.entryPrice),
    mark_price: price(v.markPrice),
    notional: amount(v.notional),
    unrealized_pnl: amount(v.unrealizedPnl),
    leverage: v.leverage,
    margin_type: v.marginType,
    margin: amount(v.margin),
    collateral: amount(r.collateral),
    isolated_margin: amount(v.isolatedMargin),
    maintenance_margin: amount(v.maintenanceMargin),
    margin_ratio: finite(v.marginRatio),
    liquidation_price: price(r.liquidationPrice),
    break_even_price: price(r.breakEvenPrice),
  };
}

export function nativeAccount(
  snapshot: AccountSnapshot,
  balances: AccountBalances,
  risks: readonly SymbolRisk[],
  asset: string,
): NativeAccountView {
  return {
    address: snapshot.address,
    margin_mode: nativeMarginMode(snapshot.account.marginMode),
    vip_tier: snapshot.account.vipTier,
    balances: nativeBalances(balances, asset),
    positions: risks.map(nativePosition).filter((p): p is NativePositionView => p !== undefined),
    open_orders: snapshot.orders.length,
    updated_at: snapshot.time > 0 ? new Date(snapshot.time).toISOString() : null,
  };
}
