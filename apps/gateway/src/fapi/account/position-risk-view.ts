import {
  effectiveLeverage,
  isIsolated,
  type Market,
  type MarketLookup,
  maxNotionalForLeverage,
  Money,
  type PositionView,
} from '@perp/domain';
import { type AccountSnapshot, marksOf } from './account-reader';
import { amount, price, quantity } from './format';

const ZERO = new Money(0);

/** Everything the position rows of positionRisk (v1, v2, v3) and account (v2, v3) show for one symbol. */
export interface SymbolRisk {
  symbol: string;
  market: Market | undefined;
  /** The open position, undefined when flat. */
  position: PositionView | undefined;
  /** Signed base size; 0 when flat. */
  size: Money;
  entryPrice: Money;
  /** The hot store's mark (the entry price when none is known yet); 0 when flat and unknown. */
  markPrice: Money;
  unrealizedPnl: Money;
  /** Signed like the size (negative for a short), at the mark price. */
  notional: Money;
  positionInitialMargin: Money;
  openOrderInitialMargin: Money;
  maintMargin: Money;
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
  updateTime: number;
}

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
  return p.gt(0) ? p : ZERO;
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
  return size.gt(0) ? entry.times(up).div(down) : entry.times(down).div(up);
}

/** The per-symbol risk of `symbols` (in that order) for the account of the snapshot. */
export function symbolRisks(
  snapshot: AccountSnapshot,
  symbols: readonly string[],
  markets: MarketLookup,
  takerRate: Money,
): SymbolRisk[] {
  const { account } = snapshot;
  const marks = marksOf(snapshot);
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
    const markPrice = v?.markPrice ?? marks(symbol) ?? ZERO;
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
      markPrice,
      unrealizedPnl: v?.unrealizedPnl ?? ZERO,
      notional: v ? (size.lt(0) ? v.notional.negated() : v.notional) : ZERO,
      positionInitialMargin: v?.margin ?? ZERO,
      openOrderInitialMargin: frozen,
      maintMargin: v?.maintenanceMargin ?? ZERO,
      isolatedWallet,
      isolatedMargin: v && isolated ? isolatedWallet.plus(v.unrealizedPnl) : ZERO,
      leverage,
      maxNotional: market ? maxNotionalForLeverage(market, leverage) : ZERO,
      bidNotional: bid,
      askNotional: ask,
      liquidationPrice: v ? liquidationPrice(market, size, entry, collateral) : ZERO,
      breakEvenPrice: breakEvenPrice(size, entry, takerRate),
      marginType: isolated ? 'isolated' : 'cross',
      active: v !== undefined || orders.length > 0,
      updateTime: v !== undefined || orders.length > 0 ? snapshot.time : 0,
    };
  });
}

/**
 * The spec: position-risk rows carry positionSide LONG or SHORT, the direction of the open
 * position (one-way mode: there is one position per symbol); a flat row says BOTH.
 */
export function positionDirection(r: SymbolRisk): 'LONG' | 'SHORT' | 'BOTH' {
  return r.size.gt(0) ? 'LONG' : r.size.lt(0) ? 'SHORT' : 'BOTH';
}

/** GET /fapi/v1/positionRisk and /fapi/v2/positionRisk row (Binance "Position Information V2"). */
export function positionRiskV2Row(r: SymbolRisk) {
  return {
    symbol: r.symbol,
    positionAmt: quantity(r.size, r.market),
    entryPrice: price(r.entryPrice),
    breakEvenPrice: price(r.breakEvenPrice),
    markPrice: price(r.markPrice),
    unRealizedProfit: amount(r.unrealizedPnl),
    liquidationPrice: price(r.liquidationPrice),
    leverage: String(r.leverage),
    maxNotionalValue: r.maxNotional.toFixed(),
    marginType: r.marginType,
    isolatedMargin: amount(r.isolatedMargin),
    isAutoAddMargin: 'false',
    positionSide: positionDirection(r),
    notional: amount(r.notional),
    isolatedWallet: amount(r.isolatedWallet),
    updateTime: r.updateTime,
  };
}

/** GET /fapi/v3/positionRisk row (Binance "Position Information V3"). */
export function positionRiskV3Row(r: SymbolRisk) {
  return {
    symbol: r.symbol,
    positionSide: positionDirection(r),
    positionAmt: quantity(r.size, r.market),
    entryPrice: price(r.entryPrice),
    breakEvenPrice: price(r.breakEvenPrice),
    markPrice: price(r.markPrice),
    unRealizedProfit: amount(r.unrealizedPnl),
    liquidationPrice: price(r.liquidationPrice),
    isolatedMargin: amount(r.isolatedMargin),
    notional: amount(r.notional),
    marginAsset: 'USDT',
    isolatedWallet: amount(r.isolatedWallet),
    initialMargin: amount(r.positionInitialMargin.plus(r.openOrderInitialMargin)),
    maintMargin: amount(r.maintMargin),
    positionInitialMargin: amount(r.positionInitialMargin),
    openOrderInitialMargin: amount(r.openOrderInitialMargin),
    // The spec's ADL quantile placeholder: 2 for an open position.
    adl: r.position ? 2 : 0,
    bidNotional: amount(r.bidNotional),
    askNotional: amount(r.askNotional),
    updateTime: r.updateTime,
  };
}
