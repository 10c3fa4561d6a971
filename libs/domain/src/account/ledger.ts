import { isBelowZero, Money } from '../money/money';
import { fromMoneyString, parseLedgerState, toMoneyString, type LedgerState } from './account-state';
import { ZERO } from './rounding';

/** Commissions collected. */
export const FEE_ACCOUNT = 'FEE';
/** Funding is cleared through it (it keeps the rounding dust); takes clearance fees, pays bankrupt losses. */
export const INSURANCE_FUND = 'INSURANCE';
/**
 * The counterparty of realized PnL. A trader who closes at a profit is paid before the traders
 * holding the losing side have realized their loss, so the money comes from here and returns when
 * they close: its balance always equals the unrealized PnL of all open positions (at any common
 * mark, since sizes sum to zero), and it is exactly zero when no position is open.
 */
export const CLEARING_ACCOUNT = 'CLEARING';

export type SystemAccount = typeof FEE_ACCOUNT | typeof INSURANCE_FUND | typeof CLEARING_ACCOUNT;
export type WalletAccount = `wallet:${string}`;
export type LedgerAccount = SystemAccount | WalletAccount;

export function walletOf(user: string): WalletAccount {
  return `wallet:${user}`;
}

export type LedgerTransferKind =
  | 'DEPOSIT'
  | 'REALIZED_PNL'
  | 'COMMISSION'
  | 'FUNDING_FEE'
  /** A liquidation's clearance fee, wallet -> insurance fund. */
  | 'INSURANCE_CLEAR'
  /** The insurance fund paying a liquidated account back to zero. */
  | 'BANKRUPTCY_LOSS';

/** One money movement. `from` is undefined only for a deposit (money entering the exchange). */
export interface LedgerTransfer {
  from: LedgerAccount | undefined;
  to: LedgerAccount;
  /** Positive. */
  amount: Money;
  kind: LedgerTransferKind;
  /** Trade id, funding id or deposit id. */
  ref: string;
}

/**
 * Double-entry balances of one risk shard. Money enters only by deposit and otherwise moves between
 * accounts, so the sum of all balances equals the deposits, exactly, after every posting.
 */
export class Ledger {
  private readonly balances = new Map<LedgerAccount, Money>();
  private deposited = ZERO;

  post(t: LedgerTransfer): void {
    if (!t.amount.isFinite() || isBelowZero(t.amount))
      throw new Error(`transfer amount must be >= 0: ${t.amount}`);
    if (t.amount.isZero()) return;
    if (t.from === undefined) {
      if (t.kind !== 'DEPOSIT') throw new Error('only a deposit has no source account');
      this.deposited = this.deposited.plus(t.amount);
    } else {
      this.balances.set(t.from, this.balance(t.from).minus(t.amount));
    }
    this.balances.set(t.to, this.balance(t.to).plus(t.amount));
  }

  balance(account: LedgerAccount): Money {
    return this.balances.get(account) ?? ZERO;
  }

  get totalDeposits(): Money {
    return this.deposited;
  }

  /** Sum of every balance; equal to totalDeposits by construction. */
  total(): Money {
    let sum = ZERO;
    for (const b of this.balances.values()) sum = sum.plus(b);
    return sum;
  }

  walletTotal(): Money {
    let sum = ZERO;
    for (const [a, b] of this.balances) if (a.startsWith('wallet:')) sum = sum.plus(b);
    return sum;
  }

  entries(): [LedgerAccount, Money][] {
    return [...this.balances.entries()];
  }

  toState(): LedgerState {
    return {
      balances: this.entries().map(([a, b]) => [a, toMoneyString(b)]),
      totalDeposits: toMoneyString(this.deposited),
    };
  }

  /** Validates the state (throws on a malformed one) and returns the ledger it describes. */
  static fromState(state: unknown): Ledger {
    const s = parseLedgerState(state);
    const ledger = new Ledger();
    for (const [account, balance] of s.balances) ledger.balances.set(account, fromMoneyString(balance));
    ledger.deposited = fromMoneyString(s.totalDeposits);
    return ledger;
  }
}
