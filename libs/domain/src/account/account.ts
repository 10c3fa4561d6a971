import type { Market } from '../markets/market';
import { isAboveZero, Money } from '../money/money';
import {
  ACCOUNT_STATE_VERSION,
  fromMoneyString,
  orderFromState,
  orderToState,
  parseAccountState,
  positionFromState,
  positionToState,
  toMoneyString,
  type AccountState,
} from './account-state';
import { isIsolated, marginTypeOf, parseMarginMode, type MarginMode } from './margin-mode';
import { isValidLeverage, maintenanceMargin, marginRatio, maxNotionalForLeverage } from './margin';
import type { AccountOrder, Side } from './order';
import { entryPrice, positionNotional, unrealizedPnl, type AccountPosition } from './position';
import { reject, type LeverageRejectReason, type MarginRejectReason, type AccountRejection } from './reasons';
import { ZERO } from './rounding';

const remainingKey = (symbol: string, side: Side) => `${side} ${symbol}`;

/** Mark price of a symbol; undefined when none is known yet (positions then count at entry). */
export type MarkPrices = (symbol: string) => Money | undefined;
export type MarketLookup = (symbol: string) => Market | undefined;

export interface AccountBalances {
  walletBalance: Money;
  unrealizedPnl: Money;
  /** Wallet + unrealized PnL of every position. */
  marginBalance: Money;
  /** Initial margin held by cross positions. */
  positionMargin: Money;
  /** Margin + collateral held by isolated positions (part of the wallet, not available). */
  isolatedMargin: Money;
  /** Margin frozen by open orders. */
  orderMargin: Money;
  /** Maintenance margin of the cross positions. */
  maintenanceMargin: Money;
  /** Wallet - isolated margin + cross unrealized PnL - cross position margin - order margin. */
  availableBalance: Money;
  /** Cross maintenance / cross margin balance (Infinity when that balance is <= 0). */
  marginRatio: Money;
}

export interface PositionView {
  id: string;
  symbol: string;
  size: Money;
  entryPrice: Money;
  markPrice: Money;
  notional: Money;
  unrealizedPnl: Money;
  leverage: number;
  /** Initial margin held. */
  margin: Money;
  marginType: 'cross' | 'isolated';
  /** Isolated: margin + added collateral; cross: 0. */
  isolatedMargin: Money;
  maintenanceMargin: Money;
  /** Isolated: own maintenance / (isolated margin + PnL); cross: the account's ratio. */
  marginRatio: Money;
}

export type LeverageResult =
  | { ok: true; symbol: string; leverage: number; maxNotionalValue: Money }
  | AccountRejection<LeverageRejectReason>;
export type MarginModeResult =
  { ok: true; mode: MarginMode; changed: boolean } | AccountRejection<MarginRejectReason>;
export type CollateralResult =
  | { ok: true; symbol: string; collateral: Money; isolatedMargin: Money }
  | AccountRejection<MarginRejectReason>;

/**
 * One user's money and risk state, owned by one risk shard. Wallet changes come only from the
 * AccountBook, which posts every one of them to its ledger; margin (frozen, position, isolated)
 * is an allocation inside the wallet, never a movement between ledger accounts.
 */
export class Account {
  private wallet = ZERO;
  private mode: MarginMode = 'CROSS';
  private tier = 0;
  private readonly leverages = new Map<string, number>();
  private readonly positionsBySymbol = new Map<string, AccountPosition>();
  private readonly ordersById = new Map<string, AccountOrder>();
  private readonly orderIdByClientId = new Map<string, string>();
  /**
   * Σ frozen of the open orders, and Σ remaining per symbol and side, kept as orders come, fill and
   * go (exact decimal sums, equal to summing the orders again): a balance or a pre-trade check
   * costs the same with one open order as with hundreds.
   */
  private frozenTotal = ZERO;
  private readonly remainingTotals = new Map<string, Money>();

  constructor(readonly user: string) {}

  /** Everything the account holds, as plain JSON (see account-state.ts). */
  toState(): AccountState {
    return {
      ...this.headState(),
      orders: this.openOrders().map(orderToState),
      clientOrderIds: [...this.orderIdByClientId],
    };
  }

  /** The state without the open orders (a projection writes those one by one, as they change). */
  headState(): Omit<AccountState, 'orders' | 'clientOrderIds'> {
    return {
      v: ACCOUNT_STATE_VERSION,
      user: this.user,
      walletBalance: toMoneyString(this.wallet),
      marginMode: this.mode,
      vipTier: this.tier,
      leverages: [...this.leverages],
      positions: this.positions().map(positionToState),
    };
  }

  /** Validates the state (throws on another version or a malformed one) and rebuilds the account. */
  static fromState(state: unknown): Account {
    const s = parseAccountState(state);
    const a = new Account(s.user);
    a.wallet = fromMoneyString(s.walletBalance);
    a.mode = s.marginMode;
    a.tier = s.vipTier;
    for (const [symbol, leverage] of s.leverages) a.leverages.set(symbol, leverage);
    for (const p of s.positions) a.positionsBySymbol.set(p.symbol, positionFromState(p));
    for (const o of s.orders) a.hold(orderFromState(o));
    for (const [clientOrderId, orderId] of s.clientOrderIds) a.orderIdByClientId.set(clientOrderId, orderId);
    return a;
  }

  get walletBalance(): Money {
    return this.wallet;
  }
  get marginMode(): MarginMode {
    return this.mode;
  }
  get vipTier(): number {
    return this.tier;
  }

  /** @internal AccountBook only: the other side of the movement is posted to the ledger. */
  applyWalletDelta(delta: Money): void {
    this.wallet = this.wallet.plus(delta);
  }

  /** @internal AccountBook only, after validating the tier against the chain. */
  assignVipTier(tier: number): void {
    this.tier = tier;
  }

  /** The standing per-symbol leverage: the user's setting or the market's default. */
  leverage(market: Market): number {
    return this.leverages.get(market.symbol) ?? market.defaultLeverage;
  }

  /** 1..market max; does not touch open positions or orders. */
  setLeverage(market: Market, leverage: number): LeverageResult {
    if (!isValidLeverage(market, leverage))
      return reject('INVALID_LEVERAGE', `leverage must be an integer from 1 to ${market.maxLeverage}`);
    this.leverages.set(market.symbol, leverage);
    return {
      ok: true,
      symbol: market.symbol,
      leverage,
      maxNotionalValue: maxNotionalForLeverage(market, leverage),
    };
  }

  setMarginMode(input: unknown): MarginModeResult {
    const mode = parseMarginMode(input);
    if (!mode) return reject('INVALID_MARGIN_MODE', 'margin mode must be CROSS, ISOLATED or UNIFIED');
    if (mode === this.mode) return { ok: true, mode, changed: false };
    if (this.ordersById.size > 0) return reject('HAS_OPEN_ORDERS', 'cancel open orders first');
    if (this.positionsBySymbol.size > 0) return reject('HAS_OPEN_POSITIONS', 'close open positions first');
    this.mode = mode;
    return { ok: true, mode, changed: true };
  }

  position(symbol: string): AccountPosition | undefined {
    return this.positionsBySymbol.get(symbol);
  }
  positions(): AccountPosition[] {
    return [...this.positionsBySymbol.values()];
  }
  findPositionById(id: string): AccountPosition | undefined {
    return this.positions().find((p) => p.id === id);
  }
  /** @internal settlement only. */
  putPosition(symbol: string, position: AccountPosition | undefined): void {
    if (position) this.positionsBySymbol.set(symbol, position);
    else this.positionsBySymbol.delete(symbol);
  }

  order(orderId: string): AccountOrder | undefined {
    return this.ordersById.get(orderId);
  }
  openOrders(symbol?: string): AccountOrder[] {
    const all = [...this.ordersById.values()];
    return symbol === undefined ? all : all.filter((o) => o.symbol === symbol);
  }
  /** A clientOrderId taken by an active order (terminal orders free theirs). */
  hasActiveClientOrderId(clientOrderId: string): boolean {
    return this.orderIdByClientId.has(clientOrderId);
  }
  /** @internal pre-trade only, after the checks passed. */
  addOrder(order: AccountOrder): void {
    if (this.ordersById.has(order.orderId)) throw new Error(`order ${order.orderId} already open`);
    if (this.orderIdByClientId.has(order.clientOrderId))
      throw new Error(`clientOrderId ${order.clientOrderId} already active`);
    this.hold(order);
    this.orderIdByClientId.set(order.clientOrderId, order.orderId);
  }
  /** @internal Drops a finished order; its frozen margin is no longer held. */
  removeOrder(orderId: string): AccountOrder | undefined {
    const o = this.ordersById.get(orderId);
    if (!o) return undefined;
    this.ordersById.delete(orderId);
    this.orderIdByClientId.delete(o.clientOrderId);
    this.count(o, o.remaining, o.frozen, false);
    return o;
  }
  /**
   * @internal settlement only: a partial fill of `qty` of an open order releases `released` of its
   * frozen margin. The order's `remaining` and `frozen` are replaced (never mutated: a projection
   * tells a changed order by their identity).
   */
  fillOrder(order: AccountOrder, qty: Money, released: Money): void {
    if (this.ordersById.get(order.orderId) !== order) throw new Error(`order ${order.orderId} is not open`);
    const o = order as { remaining: Money; frozen: Money };
    o.remaining = order.remaining.minus(qty);
    o.frozen = order.frozen.minus(released);
    this.count(order, qty, released, false);
  }

  private hold(order: AccountOrder): void {
    this.ordersById.set(order.orderId, order);
    this.count(order, order.remaining, order.frozen, true);
  }

  /** Adds to the totals (`held`) or takes from them: minus, not plus of a negated copy. */
  private count(order: AccountOrder, remaining: Money, frozen: Money, held: boolean): void {
    this.frozenTotal = held ? this.frozenTotal.plus(frozen) : this.frozenTotal.minus(frozen);
    const key = remainingKey(order.symbol, order.side);
    const before = this.remainingTotals.get(key) ?? ZERO;
    const total = held ? before.plus(remaining) : before.minus(remaining);
    if (total.isZero()) this.remainingTotals.delete(key);
    else this.remainingTotals.set(key, total);
  }

  frozenMargin(): Money {
    return this.frozenTotal;
  }

  /** Σ remaining of the open orders on `symbol` and `side`. */
  openQuantity(symbol: string, side: Side): Money {
    return this.remainingTotals.get(remainingKey(symbol, side)) ?? ZERO;
  }

  balances(marks: MarkPrices, markets: MarketLookup): AccountBalances {
    const isolated = isIsolated(this.mode);
    let upnl = ZERO;
    let crossUpnl = ZERO;
    let positionMargin = ZERO;
    let isolatedMargin = ZERO;
    let maintenance = ZERO;
    for (const p of this.positionsBySymbol.values()) {
      const mark = marks(p.symbol) ?? entryPrice(p);
      const pnl = unrealizedPnl(p, mark);
      upnl = upnl.plus(pnl);
      if (isolated) {
        isolatedMargin = isolatedMargin.plus(p.margin).plus(p.collateral);
      } else {
        crossUpnl = crossUpnl.plus(pnl);
        positionMargin = positionMargin.plus(p.margin);
        const market = markets(p.symbol);
        if (market) maintenance = maintenance.plus(maintenanceMargin(market, positionNotional(p, mark)));
      }
    }
    const orderMargin = this.frozenMargin();
    const crossBalance = this.wallet.minus(isolatedMargin).plus(crossUpnl);
    return {
      walletBalance: this.wallet,
      unrealizedPnl: upnl,
      marginBalance: this.wallet.plus(upnl),
      positionMargin,
      isolatedMargin,
      orderMargin,
      maintenanceMargin: maintenance,
      availableBalance: crossBalance.minus(positionMargin).minus(orderMargin),
      marginRatio: marginRatio(maintenance, crossBalance),
    };
  }

  /**
   * balances()'s availableBalance alone, for every pre-trade check: without the maintenance margin
   * and margin ratio (a bracket lookup per position and a division) that it does not depend on.
   */
  availableBalance(marks: MarkPrices): Money {
    const isolated = isIsolated(this.mode);
    let available = this.wallet.minus(this.frozenMargin());
    for (const p of this.positionsBySymbol.values())
      available = isolated
        ? available.minus(p.margin).minus(p.collateral)
        : available.plus(unrealizedPnl(p, marks(p.symbol) ?? entryPrice(p))).minus(p.margin);
    return available;
  }

  positionViews(marks: MarkPrices, markets: MarketLookup): PositionView[] {
    const account = this.balances(marks, markets);
    const isolated = isIsolated(this.mode);
    return this.positions().map((p) => {
      const mark = marks(p.symbol) ?? entryPrice(p);
      const notional = positionNotional(p, mark);
      const pnl = unrealizedPnl(p, mark);
      const market = markets(p.symbol);
      const mm = market ? maintenanceMargin(market, notional) : ZERO;
      const isolatedMargin = isolated ? p.margin.plus(p.collateral) : ZERO;
      return {
        id: p.id,
        symbol: p.symbol,
        size: p.size,
        entryPrice: entryPrice(p),
        markPrice: mark,
        notional,
        unrealizedPnl: pnl,
        leverage: p.leverage,
        margin: p.margin,
        marginType: marginTypeOf(this.mode),
        isolatedMargin,
        maintenanceMargin: mm,
        marginRatio: isolated ? marginRatio(mm, isolatedMargin.plus(pnl)) : account.marginRatio,
      };
    });
  }

  /** Native collateral/add: isolated positions only, from the available balance. */
  addCollateral(symbol: string, amount: Money, marks: MarkPrices): CollateralResult {
    const checked = this.checkCollateral(symbol, amount);
    if (!checked.ok) return checked;
    if (this.availableBalance(marks).lt(amount))
      return reject('INSUFFICIENT_BALANCE', 'available balance below the amount');
    return this.changeCollateral(checked.position, amount);
  }

  /**
   * Native collateral/remove: never below the initial margin, counting an unrealized loss and not
   * an unrealized profit: amount <= collateral + min(0, unrealized PnL).
   */
  removeCollateral(symbol: string, amount: Money, marks: MarkPrices): CollateralResult {
    const checked = this.checkCollateral(symbol, amount);
    if (!checked.ok) return checked;
    const p = checked.position;
    const pnl = unrealizedPnl(p, marks(symbol) ?? entryPrice(p));
    const removable = Money.max(ZERO, p.collateral.plus(Money.min(ZERO, pnl)));
    if (amount.gt(removable))
      return reject(
        'INVALID_AMOUNT',
        `at most ${removable.toFixed()} can be removed above the initial margin`,
      );
    return this.changeCollateral(p, amount.negated());
  }

  private checkCollateral(
    symbol: string,
    amount: Money,
  ): { ok: true; position: AccountPosition } | AccountRejection<MarginRejectReason> {
    if (!isIsolated(this.mode))
      return reject('INVALID_MARGIN_MODE', 'collateral applies to isolated margin only');
    if (!amount.isFinite() || !isAboveZero(amount))
      return reject('INVALID_AMOUNT', 'amount must be positive');
    const position = this.positionsBySymbol.get(symbol);
    if (!position) return reject('POSITION_NOT_FOUND', `no open position on ${symbol}`);
    return { ok: true, position };
  }

  private changeCollateral(p: AccountPosition, delta: Money): CollateralResult {
    const next = { ...p, collateral: p.collateral.plus(delta) };
    this.positionsBySymbol.set(p.symbol, next);
    return {
      ok: true,
      symbol: p.symbol,
      collateral: next.collateral,
      isolatedMargin: next.margin.plus(next.collateral),
    };
  }
}
