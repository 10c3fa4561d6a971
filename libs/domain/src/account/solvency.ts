import { Money } from '../money/money';
import type { AccountBook } from './account-book';
import { CLEARING_ACCOUNT, FEE_ACCOUNT, INSURANCE_FUND } from './ledger';
import { signedCost } from './position';
import { ZERO } from './rounding';

/** Per symbol, the net size and net signed cost of a set of positions. */
export interface SymbolTotals {
  size: Money;
  cost: Money;
}

/**
 * What one risk partition holds, from its book: deposits; the accounts' wallets; the fee,
 * insurance and clearing accounts of its ledger; and per symbol its positions' net size and net
 * signed cost (exact: positions carry their cost, not a rounded entry price). Within a partition
 * deposits = wallets + fee + insurance + clearing; across all partitions clearing = minus the
 * signed cost, which is the open positions' unrealized PnL at any common mark (sizes sum to 0).
 */
export interface PartitionTotals {
  deposits: Money;
  wallets: Money;
  fee: Money;
  insurance: Money;
  clearing: Money;
  positions: Map<string, SymbolTotals>;
}

interface UserPart {
  wallet: Money;
  positions: [symbol: string, size: Money, cost: Money][];
}

/**
 * A partition's totals kept up to date per user: `refresh` re-reads only the users a turn changed
 * (subtracting what they counted before), so a turn costs its own users, not the partition's.
 */
export class BookTotals {
  private readonly parts = new Map<string, UserPart>();
  private wallets = ZERO;
  private readonly symbols = new Map<string, SymbolTotals>();

  /** Totals of every account of the book (a restored or new partition). */
  static of(book: AccountBook): BookTotals {
    const t = new BookTotals();
    t.refresh(
      book,
      book.allAccounts().map((a) => a.user),
    );
    return t;
  }

  refresh(book: AccountBook, users: Iterable<string>): void {
    for (const user of users) {
      const before = this.parts.get(user);
      if (before) this.add(before, -1);
      const account = book.find(user);
      if (!account) {
        this.parts.delete(user);
        continue;
      }
      const part: UserPart = {
        wallet: account.walletBalance,
        positions: account.positions().map((p) => [p.symbol, p.size, signedCost(p)]),
      };
      this.parts.set(user, part);
      this.add(part, 1);
    }
  }

  totals(book: AccountBook): PartitionTotals {
    const ledger = book.ledger;
    const positions = new Map<string, SymbolTotals>();
    for (const [symbol, t] of this.symbols)
      if (!t.size.isZero() || !t.cost.isZero()) positions.set(symbol, { ...t });
    return {
      deposits: ledger.totalDeposits,
      wallets: this.wallets,
      fee: ledger.balance(FEE_ACCOUNT),
      insurance: ledger.balance(INSURANCE_FUND),
      clearing: ledger.balance(CLEARING_ACCOUNT),
      positions,
    };
  }

  private add(part: UserPart, sign: 1 | -1): void {
    this.wallets = sign > 0 ? this.wallets.plus(part.wallet) : this.wallets.minus(part.wallet);
    for (const [symbol, size, cost] of part.positions) {
      const t = this.symbols.get(symbol) ?? { size: ZERO, cost: ZERO };
      this.symbols.set(symbol, {
        size: sign > 0 ? t.size.plus(size) : t.size.minus(size),
        cost: sign > 0 ? t.cost.plus(cost) : t.cost.minus(cost),
      });
    }
  }
}

/** The deployment's books summed, at one mark per symbol. */
export interface SolvencyReport {
  deposits: Money;
  wallets: Money;
  /** Unrealized PnL of every open position: sum of size x mark - signed cost. */
  openPositionPnl: Money;
  fees: Money;
  insurance: Money;
  /** deposits - wallets - openPositionPnl - fees - insurance: exactly 0 once every fill is settled on both sides. */
  difference: Money;
  /** Symbols whose sizes do not net to zero: a fill settled by one side's partition, not yet the other's. */
  unsettled: string[];
}

/**
 * Solvency of the deployment from every partition's totals. The open positions' PnL at a common
 * mark is mark x net size - net signed cost; with the net size 0 (every fill settled by both
 * partitions) it is exactly minus the signed cost, which is the clearing total, so the difference
 * is exactly 0. A symbol without a mark counts its net size at 0 (only matters while unsettled).
 */
export function solvency(
  parts: readonly PartitionTotals[],
  mark: (symbol: string) => Money | undefined,
): SolvencyReport {
  let deposits = ZERO;
  let wallets = ZERO;
  let fees = ZERO;
  let insurance = ZERO;
  const symbols = new Map<string, SymbolTotals>();
  for (const p of parts) {
    deposits = deposits.plus(p.deposits);
    wallets = wallets.plus(p.wallets);
    fees = fees.plus(p.fee);
    insurance = insurance.plus(p.insurance);
    for (const [symbol, t] of p.positions) {
      const s = symbols.get(symbol) ?? { size: ZERO, cost: ZERO };
      symbols.set(symbol, { size: s.size.plus(t.size), cost: s.cost.plus(t.cost) });
    }
  }
  let openPositionPnl = ZERO;
  const unsettled: string[] = [];
  for (const [symbol, t] of [...symbols].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!t.size.isZero()) unsettled.push(symbol);
    openPositionPnl = openPositionPnl.plus(t.size.times(mark(symbol) ?? ZERO)).minus(t.cost);
  }
  const difference = deposits.minus(wallets).minus(openPositionPnl).minus(fees).minus(insurance);
  return { deposits, wallets, openPositionPnl, fees, insurance, difference, unsettled };
}
