import type { IncomeRecord } from '../account/income';
import { INSURANCE_FUND, walletOf, type LedgerTransfer } from '../account/ledger';
import { ZERO } from '../account/rounding';
import { Money } from '../money/money';
import { clearanceFee } from './bankruptcy';

export type ForcedTradeKind = 'LIQUIDATION' | 'ADL';

export interface LiquidatedFill {
  user: string;
  symbol: string;
  asset: string;
  kind: ForcedTradeKind;
  qty: Money;
  price: Money;
  tradeId: string;
  time: number;
  /** The account's wallet after the fill's realized PnL. */
  wallet: Money;
  /**
   * What is left to charge after the fill: cross, the cross margin balance (wallet + the PnL of
   * the positions still open; the wallet once the last one is closed); isolated, the closed part's
   * margin and collateral plus its realized PnL (negative when it lost more than it held).
   */
  left: Money;
}

export interface LiquidationCharges {
  clearanceFee: Money;
  /** What the insurance fund paid so the account (or the isolated position) ends at zero, not below. */
  insurancePayout: Money;
  transfers: LedgerTransfer[];
  /** INSURANCE_CLEAR income of the fee (negative), when there is one. */
  incomes: IncomeRecord[];
}

/**
 * The liquidated side of a LIQUIDATION or ADL fill, after its PnL settled (fee-exempt): a
 * LIQUIDATION fill pays the clearance fee to the insurance fund, capped by what is left (and by the
 * wallet); ADL fills pay none. Then, if what is left is below zero, the fund pays it back to zero
 * (BANKRUPTCY_LOSS): for a flat cross account that is its wallet. While a cross account still holds
 * a position in profit, a wallet below zero that this profit covers is not paid (the fund would
 * hand out the profit); the account stays at or under maintenance and its next step closes that
 * position, settling the wallet from the profit.
 */
export function liquidationCharges(f: LiquidatedFill): LiquidationCharges {
  const cap = Money.max(ZERO, Money.min(f.left, f.wallet));
  const fee = f.kind === 'LIQUIDATION' ? clearanceFee(f.qty, f.price, cap) : ZERO;
  const payout = Money.max(ZERO, f.left.negated());
  const wallet = walletOf(f.user);
  const transfers: LedgerTransfer[] = [];
  if (fee.gt(0))
    transfers.push({
      from: wallet,
      to: INSURANCE_FUND,
      amount: fee,
      kind: 'INSURANCE_CLEAR',
      ref: f.tradeId,
    });
  if (payout.gt(0))
    transfers.push({
      from: INSURANCE_FUND,
      to: wallet,
      amount: payout,
      kind: 'BANKRUPTCY_LOSS',
      ref: f.tradeId,
    });
  const incomes: IncomeRecord[] = fee.gt(0)
    ? [
        {
          user: f.user,
          symbol: f.symbol,
          incomeType: 'INSURANCE_CLEAR',
          income: fee.negated(),
          asset: f.asset,
          info: 'LIQUIDATION',
          time: f.time,
          tranId: f.tradeId,
          tradeId: f.tradeId,
        },
      ]
    : [];
  return { clearanceFee: fee, insurancePayout: payout, transfers, incomes };
}
