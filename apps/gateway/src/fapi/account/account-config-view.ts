import {
  type Account,
  effectiveLeverage,
  isIsolated,
  type Market,
  maxNotionalForLeverage,
} from '@perp/domain';

/**
 * GET /fapi/v1/accountConfig (Binance "Futures Account Configuration"): the same flags as
 * GET /fapi/v2/account — keys trade and deposit but never withdraw, one-way mode only, one
 * settlement asset (no multi-assets mode), no trade group; updateTime is Binance's reserved 0.
 */
export function accountConfigView(account: Account) {
  return {
    feeTier: account.vipTier,
    canTrade: true,
    canDeposit: true,
    canWithdraw: false,
    dualSidePosition: false,
    updateTime: 0,
    multiAssetsMargin: false,
    tradeGroupId: -1,
  };
}

/**
 * A row of GET /fapi/v1/symbolConfig (Binance "Symbol Configuration"): the account's margin type
 * (its mode: ISOLATED, else CROSSED), the symbol's standing leverage clamped to the market's
 * maximum, and the notional that leverage allows (as POST /fapi/v1/leverage answers).
 */
export function symbolConfigView(account: Account, market: Market) {
  const leverage = effectiveLeverage(market, account.leverage(market));
  return {
    symbol: market.symbol,
    marginType: isIsolated(account.marginMode) ? 'ISOLATED' : 'CROSSED',
    isAutoAddMargin: 'false',
    leverage,
    maxNotionalValue: maxNotionalForLeverage(market, leverage).toFixed(),
  };
}
