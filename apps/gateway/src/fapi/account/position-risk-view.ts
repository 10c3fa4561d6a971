import { type MarketLookup, type Money, symbolMetrics, type SymbolMetrics } from '@perp/domain';
import { type AccountSnapshot, marksOf } from './account-reader';
import { amount, price, quantity } from './format';

/** The domain's per-symbol metrics plus the row's updateTime (the snapshot's, when active). */
export interface SymbolRisk extends SymbolMetrics {
  updateTime: number;
}

/** The per-symbol risk of `symbols` (in that order) for the account of the snapshot. */
export function symbolRisks(
  snapshot: AccountSnapshot,
  symbols: readonly string[],
  markets: MarketLookup,
  takerRate: Money,
): SymbolRisk[] {
  return symbolMetrics(snapshot.account, symbols, marksOf(snapshot), markets, takerRate).map((m) => ({
    ...m,
    updateTime: m.active ? snapshot.time : 0,
  }));
}

/**
 * The spec: position-risk rows carry positionSide LONG or SHORT, the direction of the open
 * position (one-way mode: there is one position per symbol); a flat row says BOTH.
 */
export function positionDirection(r: SymbolRisk): 'LONG' | 'SHORT' | 'BOTH' {
  return r.size.gt(0) ? 'LONG' : r.size.lt(0) ? 'SHORT' : 'BOTH';
}

/** GET /fapi/v1/positionRisk and /fapi/v2/positionRisk row (Binance "Position Information V2"). */
export function positionRiskV2Row(r: SymbolRisk) {
  return {
    symbol: r.symbol,
    positionAmt: quantity(r.size, r.market),
    entryPrice: price(r.entryPrice),
    breakEvenPrice: price(r.breakEvenPrice),
    markPrice: price(r.markPrice),
    unRealizedProfit: amount(r.unrealizedPnl),
    liquidationPrice: price(r.liquidationPrice),
    leverage: String(r.leverage),
    maxNotionalValue: r.maxNotional.toFixed(),
    marginType: r.marginType,
    isolatedMargin: amount(r.isolatedMargin),
    isAutoAddMargin: 'false',
    positionSide: positionDirection(r),
    notional: amount(r.notional),
    isolatedWallet: amount(r.isolatedWallet),
    updateTime: r.updateTime,
  };
}

/**
 * GET /fapi/v3/positionRisk row (Binance "Position Information V3"); `adl` is the position's ADL
 * quantile (adlQuantile's BOTH: 0 without a position or a ranking yet).
 */
export function positionRiskV3Row(r: SymbolRisk, adl = 0) {
  return {
    symbol: r.symbol,
    positionSide: positionDirection(r),
    positionAmt: quantity(r.size, r.market),
    entryPrice: price(r.entryPrice),
    breakEvenPrice: price(r.breakEvenPrice),
    markPrice: price(r.markPrice),
    unRealizedProfit: amount(r.unrealizedPnl),
    liquidationPrice: price(r.liquidationPrice),
    isolatedMargin: amount(r.isolatedMargin),
    notional: amount(r.notional),
    marginAsset: 'USDT',
    isolatedWallet: amount(r.isolatedWallet),
    initialMargin: amount(r.initialMargin),
    maintMargin: amount(r.maintMargin),
    positionInitialMargin: amount(r.positionInitialMargin),
    openOrderInitialMargin: amount(r.openOrderInitialMargin),
    adl: r.position ? adl : 0,
    bidNotional: amount(r.bidNotional),
    askNotional: amount(r.askNotional),
    updateTime: r.updateTime,
  };
}
