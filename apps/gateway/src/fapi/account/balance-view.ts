import { isIsolated, type MarketLookup, Money } from '@perp/domain';
import { type AccountSnapshot, marksOf } from './account-reader';
import { amount } from './format';

const ZERO = new Money(0);

/** The settlement asset: one deployment settles in USDT only. */
export const ASSET = 'USDT';

/** The account-wide numbers of balance and account responses (one asset, so asset = account). */
export interface AccountTotals {
  walletBalance: Money;
  unrealizedProfit: Money;
  marginBalance: Money;
  /** Initial margin held by positions (each opening fill's notional / leverage). */
  positionInitialMargin: Money;
  /** Margin frozen by open orders. */
  openOrderInitialMargin: Money;
  maintMargin: Money;
  /** Wallet minus isolated positions' margin and collateral. */
  crossWalletBalance: Money;
  crossUnPnl: Money;
  availableBalance: Money;
  /** Available balance minus unrealized profit (a profit cannot be taken out before it is realized). */
  maxWithdrawAmount: Money;
  updateTime: number;
}

export function accountTotals(snapshot: AccountSnapshot, markets: MarketLookup): AccountTotals {
  const { account } = snapshot;
  const marks = marksOf(snapshot);
  const b = account.balances(marks, markets);
  const views = account.positionViews(marks, markets);
  const crossUnPnl = isIsolated(account.marginMode) ? ZERO : b.unrealizedPnl;
  return {
    walletBalance: b.walletBalance,
    unrealizedProfit: b.unrealizedPnl,
    marginBalance: b.marginBalance,
    positionInitialMargin: views.reduce((s, v) => s.plus(v.margin), ZERO),
    openOrderInitialMargin: b.orderMargin,
    maintMargin: views.reduce((s, v) => s.plus(v.maintenanceMargin), ZERO),
    crossWalletBalance: b.walletBalance.minus(b.isolatedMargin),
    crossUnPnl,
    availableBalance: b.availableBalance,
    maxWithdrawAmount: Money.max(ZERO, b.availableBalance.minus(Money.max(ZERO, crossUnPnl))),
    updateTime: snapshot.time,
  };
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
    initialMargin: amount(t.positionInitialMargin.plus(t.openOrderInitialMargin)),
    positionInitialMargin: amount(t.positionInitialMargin),
    openOrderInitialMargin: amount(t.openOrderInitialMargin),
    crossWalletBalance: amount(t.crossWalletBalance),
    crossUnPnl: amount(t.crossUnPnl),
    availableBalance: amount(t.availableBalance),
    maxWithdrawAmount: amount(t.maxWithdrawAmount),
    updateTime: t.updateTime,
  };
}
