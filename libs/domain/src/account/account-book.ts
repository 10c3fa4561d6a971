import type { FeeTier } from '../markets/market';
import { isAboveZero, Money } from '../money/money';
import {
  Account,
  type AccountBalances,
  type CollateralResult,
  type LeverageResult,
  type MarginModeResult,
  type MarketLookup,
  type MarkPrices,
  type PositionView,
} from './account';
import {
  ACCOUNT_STATE_VERSION,
  fromMoneyString,
  parseAccountBookState,
  toMoneyString,
  type AccountBookState,
} from './account-state';
import { feeRates, isValidVipTier } from './fees';
import {
  liquidationCharges,
  type ForcedTradeKind,
  type LiquidationCharges,
} from '../liquidation/liquidation-charges';
import { isIsolated } from './margin-mode';
import { Ledger, walletOf, type LedgerTransfer } from './ledger';
import { checkPreTrade, type PreTradeRequest, type PreTradeResult } from './pre-trade';
import { reject } from './reasons';
import { checkTriggerOrder, type TriggerOrderType } from '../triggers/trigger-orders';
import {
  settleFunding,
  releaseOrderMargin,
  settleFill,
  type SettlementFill,
  type FundingSettlement,
  type SettlementResult,
} from './settlement';

/** A forced fill's settlement: the fill's own, plus the liquidated side's charges. */
export type ForcedSettlement = SettlementResult & Omit<LiquidationCharges, 'transfers' | 'incomes'>;

export interface AccountBookOptions {
  /** The live market list (e.g. `(s) => registry.find(s)`): status and max leverage can change. */
  markets: MarketLookup;
  feeTiers: readonly FeeTier[];
  /** Settlement asset of the deployment. */
  asset?: string;
}

/**
 * The accounts one risk shard owns (users partitioned by hash), their ledger and the mark prices
 * it has seen. Every wallet change goes through `post`, which writes the ledger and the account
 * together, so the ledger's wallet balances and the accounts' always agree.
 * With users on several shards each shard has its own fee, insurance and clearing accounts; the
 * clearing balances net to the unrealized PnL of all positions only summed over the shards.
 */
export class AccountBook {
  private shardLedger = new Ledger();
  private readonly accounts = new Map<string, Account>();
  private readonly marks = new Map<string, Money>();
  /** Users holding a position, per symbol (the accounts a mark can liquidate), and sorted lists of them. */
  private readonly holdersBySymbol = new Map<string, Set<string>>();
  private readonly sortedHolders = new Map<string, string[]>();
  private readonly asset: string;
  readonly markPrices: MarkPrices = (symbol) => this.marks.get(symbol);

  constructor(private readonly options: AccountBookOptions) {
    this.asset = options.asset ?? 'USDT';
  }

  /** A getter so that fromState can put the restored ledger in place. */
  get ledger(): Ledger {
    return this.shardLedger;
  }

  /** Every account, the ledger and the mark prices, as plain JSON (see account-state.ts). */
  toState(): AccountBookState {
    return {
      v: ACCOUNT_STATE_VERSION,
      accounts: this.allAccounts().map((a) => a.toState()),
      ledger: this.shardLedger.toState(),
      marks: [...this.marks].map(([symbol, price]) => [symbol, toMoneyString(price)]),
    };
  }

  /**
   * The book a state was taken of, with the live configuration in `options` (markets, fee tiers
   * and asset are configuration, not state). Throws on another version or a malformed state,
   * including one whose ledger wallets disagree with its accounts.
   */
  static fromState(state: unknown, options: AccountBookOptions): AccountBook {
    const s = parseAccountBookState(state);
    const book = new AccountBook(options);
    // The parts are validated again by their own fromState: cheap next to the JSON parse.
    for (const a of s.accounts) {
      const account = Account.fromState(a);
      book.accounts.set(a.user, account);
      for (const p of account.positions()) book.indexHolder(a.user, p.symbol, true);
    }
    book.shardLedger = Ledger.fromState(s.ledger);
    for (const [symbol, price] of s.marks) book.setMarkPrice(symbol, fromMoneyString(price));
    return book;
  }

  /** The user's account, opened empty on first use. */
  account(user: string): Account {
    let a = this.accounts.get(user);
    if (!a) {
      a = new Account(user);
      this.accounts.set(user, a);
    }
    return a;
  }

  find(user: string): Account | undefined {
    return this.accounts.get(user);
  }

  allAccounts(): Account[] {
    return [...this.accounts.values()];
  }

  setMarkPrice(symbol: string, price: Money): void {
    if (!price.isFinite() || !isAboveZero(price)) throw new Error(`mark price of ${symbol} must be positive`);
    this.marks.set(symbol, price);
  }

  deposit(user: string, amount: Money, ref: string): LedgerTransfer[] {
    if (!amount.isFinite() || !isAboveZero(amount)) throw new Error('deposit must be positive');
    const t: LedgerTransfer[] = [{ from: undefined, to: walletOf(user), amount, kind: 'DEPOSIT', ref }];
    this.post(t);
    return t;
  }

  /** Operator command; false for a tier the chain does not define. */
  setVipTier(user: string, tier: number): boolean {
    if (!isValidVipTier(this.options.feeTiers, tier)) return false;
    this.account(user).assignVipTier(tier);
    return true;
  }

  setLeverage(user: string, symbol: string, leverage: number): LeverageResult {
    const market = this.options.markets(symbol);
    if (!market) return reject('INVALID_SYMBOL', `unknown symbol ${symbol}`);
    return this.account(user).setLeverage(market, leverage);
  }

  setMarginMode(user: string, mode: unknown): MarginModeResult {
    return this.account(user).setMarginMode(mode);
  }

  addCollateral(user: string, symbol: string, amount: Money): CollateralResult {
    return this.account(user).addCollateral(symbol, amount, this.markPrices);
  }

  removeCollateral(user: string, symbol: string, amount: Money): CollateralResult {
    return this.account(user).removeCollateral(symbol, amount, this.markPrices);
  }

  /** Pre-trade and, when accepted, the order rests in the account holding its frozen margin. */
  placeOrder(user: string, req: PreTradeRequest): PreTradeResult {
    const market = this.options.markets(req.symbol);
    if (!market) return reject('INVALID_SYMBOL', `unknown symbol ${req.symbol}`);
    const account = this.account(user);
    const result = checkPreTrade(account, market, req, this.markPrices);
    if (result.ok) account.addOrder(result.order);
    return result;
  }

  /** Rule 8: a trigger order's checks at placement; it holds no margin until it fires. */
  checkTriggerOrder(
    user: string,
    req: PreTradeRequest & { type: TriggerOrderType; stopPrice: Money },
  ): ReturnType<typeof checkTriggerOrder> {
    const market = this.options.markets(req.symbol);
    if (!market) return reject('INVALID_SYMBOL', `unknown symbol ${req.symbol}`);
    return checkTriggerOrder(this.account(user), market, req, this.markPrices);
  }

  /** Cancel, expiry or rejection: the released margin, or undefined for an order not held. */
  releaseOrder(user: string, orderId: string): Money | undefined {
    const a = this.accounts.get(user);
    return a && releaseOrderMargin(a, orderId);
  }

  settleFill(fill: SettlementFill): SettlementResult {
    const market = this.options.markets(fill.symbol);
    if (!market) throw new Error(`fill ${fill.tradeId} for unknown market ${fill.symbol}`);
    const account = this.account(fill.user);
    const rates = feeRates(this.options.feeTiers, account.vipTier);
    const result = settleFill(account, market, fill, rates, this.asset);
    this.post(result.transfers);
    this.indexHolder(fill.user, fill.symbol, result.position !== undefined);
    return result;
  }

  /**
   * A LIQUIDATION or ADL fill, commission-free. For the `liquidated` side, then the clearance
   * fee (LIQUIDATION only) and the insurance fund's payout of a deficit (see liquidationCharges).
   */
  settleForcedFill(fill: SettlementFill, kind: ForcedTradeKind, liquidated: boolean): ForcedSettlement {
    const r = this.settleFill({ ...fill, feeExempt: true });
    if (!liquidated) return { ...r, clearanceFee: new Money(0), insurancePayout: new Money(0) };
    const account = this.account(fill.user);
    const b = account.balances(this.markPrices, this.options.markets);
    const charges = liquidationCharges({
      user: fill.user,
      symbol: fill.symbol,
      asset: this.asset,
      kind,
      qty: fill.qty,
      price: fill.price,
      tradeId: fill.tradeId,
      time: fill.time,
      wallet: account.walletBalance,
      left: isIsolated(account.marginMode)
        ? r.releasedPositionMargin.plus(r.realizedPnl)
        : b.marginBalance.minus(b.isolatedMargin),
    });
    this.post(charges.transfers);
    return {
      ...r,
      incomes: [...r.incomes, ...charges.incomes],
      transfers: [...r.transfers, ...charges.transfers],
      clearanceFee: charges.clearanceFee,
      insurancePayout: charges.insurancePayout,
    };
  }

  /** The users holding a position on `symbol`, sorted (a deterministic order to check them in). */
  holders(symbol: string): readonly string[] {
    let sorted = this.sortedHolders.get(symbol);
    if (!sorted) {
      sorted = [...(this.holdersBySymbol.get(symbol) ?? [])].sort();
      this.sortedHolders.set(symbol, sorted);
    }
    return sorted;
  }

  private indexHolder(user: string, symbol: string, holds: boolean): void {
    let set = this.holdersBySymbol.get(symbol);
    if (holds === (set?.has(user) ?? false)) return;
    if (!set) this.holdersBySymbol.set(symbol, (set = new Set()));
    if (holds) set.add(user);
    else set.delete(user);
    this.sortedHolders.delete(symbol);
  }

  applyFunding(
    user: string,
    symbol: string,
    fundingRate: Money,
    markPrice: Money,
    time: number,
    fundingId: string,
  ): FundingSettlement {
    const a = this.accounts.get(user);
    if (!a) return { income: undefined, transfers: [] };
    const result = settleFunding(a, symbol, fundingRate, markPrice, time, fundingId, this.asset);
    this.post(result.transfers);
    return result;
  }

  balances(user: string): AccountBalances {
    return this.account(user).balances(this.markPrices, this.options.markets);
  }

  positions(user: string): PositionView[] {
    return this.account(user).positionViews(this.markPrices, this.options.markets);
  }

  private post(transfers: readonly LedgerTransfer[]): void {
    for (const t of transfers) {
      this.ledger.post(t);
      if (t.to.startsWith('wallet:')) this.account(t.to.slice('wallet:'.length)).applyWalletDelta(t.amount);
      if (t.from?.startsWith('wallet:'))
        this.account(t.from.slice('wallet:'.length)).applyWalletDelta(t.amount.negated());
    }
  }
}
