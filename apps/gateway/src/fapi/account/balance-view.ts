import { accountMetrics, type AccountMetrics, type MarketLookup } from '@perp/domain';
import { type AccountSnapshot, marksOf } from './account-reader';
import { amount } from './format';

/** The settlement asset: one deployment settles in USDT only. */
export const ASSET = 'USDT';

/** The domain's account metrics plus the snapshot's time (one asset, so asset = account). */
export interface AccountTotals extends AccountMetrics {
  updateTime: number;
}

export function accountTotals(snapshot: AccountSnapshot, markets: MarketLookup): AccountTotals {
  return { ...accountMetrics(snapshot.account, marksOf(snapshot), markets), updateTime: snapshot.time };
}

/** GET /fapi/v2/balance and /fapi/v3/balance: one row, USDT (Binance "Futures Account Balance V2/V3"). */
export function balanceRows(t: AccountTotals, accountAlias: string) {
  return [
    {
      accountAlias,
      asset: ASSET,
      balance: amount(t.walletBalance),
      crossWalletBalance: amount(t.crossWalletBalance),
      crossUnPnl: amount(t.crossUnPnl),
      availableBalance: amount(t.availableBalance),
      maxWithdrawAmount: amount(t.maxWithdrawAmount),
      marginAvailable: true,
      updateTime: t.updateTime,
    },
  ];
}

/** The USDT entry of `assets` in GET /fapi/v3/account (v2 adds marginAvailable). */
export function assetRow(t: AccountTotals) {
  return {
    asset: ASSET,
    walletBalance: amount(t.walletBalance),
    unrealizedProfit: amount(t.unrealizedProfit),
    marginBalance: amount(t.marginBalance),
    maintMargin: amount(t.maintMargin),
    initialMargin: amount(t.initialMargin),
    positionInitialMargin: amount(t.positionInitialMargin),
    openOrderInitialMargin: amount(t.openOrderInitialMargin),
    crossWalletBalance: amount(t.crossWalletBalance),
    crossUnPnl: amount(t.crossUnPnl),
    availableBalance: amount(t.availableBalance),
    maxWithdrawAmount: amount(t.maxWithdrawAmount),
    updateTime: t.updateTime,
  };
}
