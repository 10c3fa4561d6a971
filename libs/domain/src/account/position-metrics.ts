import type { Market } from '../markets/market';
import { isAboveZero, isBelowZero, Money } from '../money/money';
import type { Account, MarketLookup, MarkPrices, PositionView } from './account';
import { effectiveLeverage, maxNotionalForLeverage } from './margin';
import { isIsolated, marginTypeOf } from './margin-mode';
import { ZERO } from './rounding';

/**
 * The price at which the position's margin ratio reaches 1 (maintenance = margin balance) with
 * every other mark unchanged. `collateral` is what backs the position apart from its own PnL and
 * maintenance: cross = cross wallet + the other cross positions' (PnL - maintenance); isolated =
 * its margin + collateral. Solving collateral + size x (P - entry) = |size| x P x rate - cum for P
 * in each maintenance bracket, the answer is the one whose notional falls in that bracket;
 * 0 when no positive price liquidates the position.
 */
export function liquidationPrice(
  market: Market | undefined,
  size: Money,
  entry: Money,
  collateral: Money,
): Money {
  if (!market || size.isZero()) return ZERO;
  const abs = size.abs();
  const brackets = market.maintenanceBrackets;
  let floor = ZERO;
  let p = ZERO;
  for (let i = 0; i < brackets.length; i++) {
    const b = brackets[i];
    const denominator = size.minus(abs.times(b.maintMarginRatio));
    if (denominator.isZero()) continue;
    p = size.times(entry).minus(collateral).minus(b.cum).div(denominator);
    const notional = abs.times(p);
    if ((i === 0 || notional.gt(floor)) && notional.lte(b.notionalCap)) break;
    floor = new Money(b.notionalCap);
  }
  return isAboveZero(p) ? p : ZERO;
}

/**
 * The exit price at which closing with a taker fill breaks even, counting the opening fee and the
 * closing fee at the account's taker rate: long entry x (1 + t) / (1 - t), short entry x (1 - t) / (1 + t).
 */
export function breakEvenPrice(size: Money, entry: Money, takerRate: Money): Money {
  if (size.isZero()) return ZERO;
  if (!takerRate.lt(1)) return entry;
  const up = new Money(1).plus(takerRate);
  const down = new Money(1).minus(takerRate);
  return isAboveZero(size) ? entry.times(up).div(down) : entry.times(down).div(up);
}

/** The risk figures of one symbol of an account: what position and account rows show. */
export interface SymbolMetrics {
  symbol: string;
  market: Market | undefined;
  /** The open position, undefined when flat. */
  position: PositionView | undefined;
  /** Signed base size; 0 when flat. */
  size: Money;
  entryPrice: Money;
  /** The known mark (the entry price when none is known yet); 0 when flat and unknown. */
  markPrice: Money;
  unrealizedPnl: Money;
  /** Signed like the size (negative for a short), at the mark price. */
  notional: Money;
  positionInitialMargin: Money;
  openOrderInitialMargin: Money;
  /** Position + open-order initial margin. */
  initialMargin: Money;
  maintMargin: Money;
  /** Isolated: collateral added on top of the position's initial margin; cross: 0. */
  collateral: Money;
  /** Isolated: margin + collateral; cross: 0. */
  isolatedWallet: Money;
  /** Isolated: isolatedWallet + unrealized PnL; cross: 0. */
  isolatedMargin: Money;
  /** The standing leverage of the symbol (the user's setting or the default, clamped to the max). */
  leverage: number;
  maxNotional: Money;
  /** Notional of the open BUY / SELL orders' remaining quantity at their reference prices. */
  bidNotional: Money;
  askNotional: Money;
  liquidationPrice: Money;
  breakEvenPrice: Money;
  marginType: 'cross' | 'isolated';
  /** The position or open orders on the symbol exist. */
  active: boolean;
}

/** The metrics of `symbols` (in that order); break-even at the account's taker rate. */
export function symbolMetrics(
  account: Account,
  symbols: readonly string[],
  marks: MarkPrices,
  markets: MarketLookup,
  takerRate: Money,
): SymbolMetrics[] {
  const views = account.positionViews(marks, markets);
  const balances = account.balances(marks, markets);
  const isolated = isIsolated(account.marginMode);
  const crossWallet = account.walletBalance.minus(balances.isolatedMargin);
  // Σ (PnL - maintenance) of the cross positions; each position's own share is taken back out.
  const crossSlack = isolated
    ? ZERO
    : views.reduce((s, v) => s.plus(v.unrealizedPnl).minus(v.maintenanceMargin), ZERO);
  const bySymbol = new Map(views.map((v) => [v.symbol, v]));

  return symbols.map((symbol) => {
    const market = markets(symbol);
    const v = bySymbol.get(symbol);
    const orders = account.openOrders(symbol);
    let frozen = ZERO;
    let bid = ZERO;
    let ask = ZERO;
    for (const o of orders) {
      frozen = frozen.plus(o.frozen);
      const n = o.remaining.times(o.referencePrice);
      if (o.side === 'BUY') bid = bid.plus(n);
      else ask = ask.plus(n);
    }
    const leverage = market ? effectiveLeverage(market, account.leverage(market)) : (v?.leverage ?? 1);
    const size = v?.size ?? ZERO;
    const entry = v?.entryPrice ?? ZERO;
    const positionMargin = v?.margin ?? ZERO;
    const collateral = !v
      ? ZERO
      : isolated
        ? v.isolatedMargin
        : crossWallet.plus(crossSlack).minus(v.unrealizedPnl).plus(v.maintenanceMargin);
    const isolatedWallet = v && isolated ? v.isolatedMargin : ZERO;
    return {
      symbol,
      market,
      position: v,
      size,
      entryPrice: entry,
      markPrice: v?.markPrice ?? marks(symbol) ?? ZERO,
      unrealizedPnl: v?.unrealizedPnl ?? ZERO,
      notional: v ? (isBelowZero(size) ? v.notional.negated() : v.notional) : ZERO,
      positionInitialMargin: positionMargin,
      openOrderInitialMargin: frozen,
      initialMargin: positionMargin.plus(frozen),
      maintMargin: v?.maintenanceMargin ?? ZERO,
      collateral: v && isolated ? v.isolatedMargin.minus(v.margin) : ZERO,
      isolatedWallet,
      isolatedMargin: v && isolated ? isolatedWallet.plus(v.unrealizedPnl) : ZERO,
      leverage,
      maxNotional: market ? maxNotionalForLeverage(market, leverage) : ZERO,
      bidNotional: bid,
      askNotional: ask,
      liquidationPrice: v ? liquidationPrice(market, size, entry, collateral) : ZERO,
      breakEvenPrice: breakEvenPrice(size, entry, takerRate),
      marginType: marginTypeOf(account.marginMode),
      active: v !== undefined || orders.length > 0,
    };
  });
}

/** The account-wide figures of balance and account responses (one settlement asset). */
export interface AccountMetrics {
  walletBalance: Money;
  unrealizedProfit: Money;
  marginBalance: Money;
  /** Initial margin held by positions (each opening fill's notional / leverage). */
  positionInitialMargin: Money;
  /** Margin frozen by open orders. */
  openOrderInitialMargin: Money;
  /** Position + open-order initial margin. */
  initialMargin: Money;
  maintMargin: Money;
  /** Wallet minus isolated positions' margin and collateral. */
  crossWalletBalance: Money;
  /** Unrealized PnL of the cross positions (0 in isolated mode). */
  crossUnPnl: Money;
  availableBalance: Money;
  /** Available balance minus unrealized profit (a profit cannot be taken out before it is realized). */
  maxWithdrawAmount: Money;
}

export function accountMetrics(account: Account, marks: MarkPrices, markets: MarketLookup): AccountMetrics {
  const b = account.balances(marks, markets);
  const views = account.positionViews(marks, markets);
  const crossUnPnl = isIsolated(account.marginMode) ? ZERO : b.unrealizedPnl;
  const positionInitialMargin = views.reduce((s, v) => s.plus(v.margin), ZERO);
  return {
    walletBalance: b.walletBalance,
    unrealizedProfit: b.unrealizedPnl,
    marginBalance: b.marginBalance,
    positionInitialMargin,
    openOrderInitialMargin: b.orderMargin,
    initialMargin: positionInitialMargin.plus(b.orderMargin),
    maintMargin: views.reduce((s, v) => s.plus(v.maintenanceMargin), ZERO),
    crossWalletBalance: b.walletBalance.minus(b.isolatedMargin),
    crossUnPnl,
    availableBalance: b.availableBalance,
    maxWithdrawAmount: Money.max(ZERO, b.availableBalance.minus(Money.max(ZERO, crossUnPnl))),
  };
}
