import { assetRow, type AccountTotals } from './balance-view';
import { amount, price, quantity } from './format';
import type { SymbolRisk } from './position-risk-view';

/** The account-wide totals of GET /fapi/v2/account and /fapi/v3/account (single-asset mode). */
function totals(t: AccountTotals) {
  return {
    totalInitialMargin: amount(t.initialMargin),
    totalMaintMargin: amount(t.maintMargin),
    totalWalletBalance: amount(t.walletBalance),
    totalUnrealizedProfit: amount(t.unrealizedProfit),
    totalMarginBalance: amount(t.marginBalance),
    totalPositionInitialMargin: amount(t.positionInitialMargin),
    totalOpenOrderInitialMargin: amount(t.openOrderInitialMargin),
    totalCrossWalletBalance: amount(t.crossWalletBalance),
    totalCrossUnPnl: amount(t.crossUnPnl),
    availableBalance: amount(t.availableBalance),
    maxWithdrawAmount: amount(t.maxWithdrawAmount),
  };
}

/** A `positions` entry of GET /fapi/v3/account (symbols with a position or open orders). */
export function accountV3Position(r: SymbolRisk) {
  return {
    symbol: r.symbol,
    positionSide: 'BOTH',
    positionAmt: quantity(r.size, r.market),
    unrealizedProfit: amount(r.unrealizedPnl),
    isolatedMargin: amount(r.isolatedMargin),
    notional: amount(r.notional),
    isolatedWallet: amount(r.isolatedWallet),
    initialMargin: amount(r.initialMargin),
    maintMargin: amount(r.maintMargin),
    updateTime: r.updateTime,
  };
}

/** A `positions` entry of GET /fapi/v2/account (every symbol). */
export function accountV2Position(r: SymbolRisk) {
  return {
    symbol: r.symbol,
    initialMargin: amount(r.initialMargin),
    maintMargin: amount(r.maintMargin),
    unrealizedProfit: amount(r.unrealizedPnl),
    positionInitialMargin: amount(r.positionInitialMargin),
    openOrderInitialMargin: amount(r.openOrderInitialMargin),
    leverage: String(r.leverage),
    isolated: r.marginType === 'isolated',
    entryPrice: price(r.entryPrice),
    breakEvenPrice: price(r.breakEvenPrice),
    maxNotional: r.maxNotional.toFixed(),
    bidNotional: amount(r.bidNotional),
    askNotional: amount(r.askNotional),
    positionSide: 'BOTH',
    positionAmt: quantity(r.size, r.market),
    updateTime: r.updateTime,
  };
}

/** GET /fapi/v3/account (Binance "Account Information V3"). */
export function accountV3(t: AccountTotals, risks: readonly SymbolRisk[]) {
  return {
    ...totals(t),
    assets: [assetRow(t)],
    positions: risks.filter((r) => r.active).map(accountV3Position),
  };
}

/**
 * GET /fapi/v2/account (Binance "Account Information V2"). Keys may deposit and trade but never
 * withdraw (spec: permissions are always trading,deposit); one asset, so no multi-assets mode.
 */
export function accountV2(t: AccountTotals, risks: readonly SymbolRisk[], feeTier: number) {
  return {
    feeTier,
    feeBurn: false,
    canTrade: true,
    canDeposit: true,
    canWithdraw: false,
    updateTime: 0,
    multiAssetsMargin: false,
    tradeGroupId: -1,
    ...totals(t),
    assets: [{ ...assetRow(t), marginAvailable: true }],
    positions: risks.map(accountV2Position),
  };
}
