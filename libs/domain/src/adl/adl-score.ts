import { Money } from '../money/money';
import type { AccountBalances, PositionView } from '../account/account';

const ZERO = new Money(0);
const ONE = new Money(1);

/** What one position's ADL score is computed from, all at the current mark. */
export interface AdlScoreInput {
  /** The position's unrealized PnL. */
  unrealizedPnl: Money;
  /**
   * The wallet that backs it: the cross wallet (wallet minus isolated margins) for a cross
   * position, the isolated wallet (margin + collateral) for an isolated one.
   */
  wallet: Money;
  /**
   * Maintenance margin / margin balance of what backs it (the account's cross ratio, or the
   * isolated position's own); Infinity (or not finite) when that margin balance is <= 0.
   */
  marginRatio: Money;
}

/**
 * Binance's ADL ranking value, "LeveragePnl" (USDⓈ-M futures FAQ, Auto-Deleveraging):
 *   PnL percent   = max(0, unrealized PnL) / max(1, wallet)
 *   margin ratio  = maintenance margin / (wallet + unrealized PnL), 0 when that balance is <= 0
 *   LeveragePnl   = PnL percent x margin ratio
 * The margin ratio plays the effective leverage: the more profitable and the closer to its own
 * maintenance, the earlier a position is deleveraged.
 *
 * Binance gives every losing position 0 (they tie behind the profitable ones). Here a losing
 * position scores PnL percent / margin ratio instead (negative; BitMEX's "PnL% / effective
 * leverage"), so losers stay behind every profitable position and the less leveraged loser goes
 * last; one whose margin balance is <= 0 scores 0. 18 decimals, rounded toward zero.
 */
export function adlScore(i: AdlScoreInput): Money {
  const base = Money.max(ONE, i.wallet);
  const pnlPercent = i.unrealizedPnl.div(base);
  const ratio = i.marginRatio.isFinite() && i.marginRatio.gt(0) ? i.marginRatio : ZERO;
  if (i.unrealizedPnl.gt(0)) return pnlPercent.times(ratio).decimalPlaces(18, Money.ROUND_DOWN);
  if (ratio.isZero() || i.unrealizedPnl.isZero()) return ZERO;
  return pnlPercent.div(ratio).decimalPlaces(18, Money.ROUND_DOWN);
}

/**
 * The score of one position of an account, from its view and the account's balances: a cross
 * position is backed by the cross wallet (wallet minus isolated margins) at the account's margin
 * ratio, an isolated one by its own wallet and ratio.
 */
export function positionAdlScore(
  view: PositionView,
  balances: Pick<AccountBalances, 'walletBalance' | 'isolatedMargin'>,
): Money {
  const wallet =
    view.marginType === 'isolated'
      ? view.isolatedMargin
      : balances.walletBalance.minus(balances.isolatedMargin);
  return adlScore({ unrealizedPnl: view.unrealizedPnl, wallet, marginRatio: view.marginRatio });
}
