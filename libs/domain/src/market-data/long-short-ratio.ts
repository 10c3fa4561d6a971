import { Money } from '../money/money';
import type { TradeSide } from './candles';
import { ratioOrZero, statDecimal } from './ratios';

/** One symbol's positions: user → signed size in base units (long > 0, short < 0). */
export type SignedPositions = ReadonlyMap<string, Money>;

/** Shares of accounts: net long, net short, among the accounts with a position. */
export interface AccountRatio {
  longAccount: Money;
  shortAccount: Money;
  /** longAccount / shortAccount; 0 when no account is short. */
  longShortRatio: Money;
}

/** Shares of position size: long, short, of the total size of the accounts counted. */
export interface PositionRatio {
  longPosition: Money;
  shortPosition: Money;
  /** longPosition / shortPosition; 0 when nothing is short. */
  longShortRatio: Money;
}

const ZERO = new Money(0);
const ONE = new Money(1);

/** Shares that sum to exactly 1 (0 and 0 when there is nothing). */
function shares(long: Money, short: Money): [Money, Money, Money] {
  const total = long.plus(short);
  if (total.isZero()) return [ZERO, ZERO, ZERO];
  const longShare = long.div(total);
  return [longShare, ONE.minus(longShare), ratioOrZero(long, short)];
}

function accountRatio(sizes: Iterable<Money>): AccountRatio {
  let longs = 0;
  let shorts = 0;
  for (const s of sizes) {
    if (s.gt(0)) longs += 1;
    else if (s.lt(0)) shorts += 1;
  }
  const [longAccount, shortAccount, longShortRatio] = shares(new Money(longs), new Money(shorts));
  return { longAccount, shortAccount, longShortRatio };
}

/** Binance's global long/short account ratio over every account holding a position. */
export function globalAccountRatio(positions: SignedPositions): AccountRatio {
  return accountRatio(positions.values());
}

/**
 * The top 20 % of accounts with a position by absolute size, rounded up (so at least one when any
 * exists), largest first; equal sizes rank by user id ascending, so the answer is deterministic.
 */
export function topAccounts(positions: SignedPositions): [user: string, size: Money][] {
  const held = [...positions].filter(([, s]) => !s.isZero());
  held.sort(([ua, a], [ub, b]) => b.abs().comparedTo(a.abs()) || (ua < ub ? -1 : ua > ub ? 1 : 0));
  return held.slice(0, Math.ceil(held.length / 5));
}

/** Binance's top-trader long/short account ratio: accounts counted once each, over topAccounts. */
export function topTraderAccountRatio(positions: SignedPositions): AccountRatio {
  return accountRatio(topAccounts(positions).map(([, s]) => s));
}

/**
 * Binance's top-trader long/short position ratio: the long and short shares of the top accounts'
 * total position size. Sizes are in base units: with one symbol and one mark price, shares of
 * notional are the same numbers.
 */
export function topTraderPositionRatio(positions: SignedPositions): PositionRatio {
  let long = ZERO;
  let short = ZERO;
  for (const [, s] of topAccounts(positions)) {
    if (s.gt(0)) long = long.plus(s);
    else short = short.minus(s);
  }
  const [longPosition, shortPosition, longShortRatio] = shares(long, short);
  return { longPosition, shortPosition, longShortRatio };
}

export interface AccountRatioRow {
  longShortRatio: string;
  longAccount: string;
  shortAccount: string;
  timestamp: string;
}

export interface PositionRatioRow {
  longShortRatio: string;
  longPosition: string;
  shortPosition: string;
  timestamp: string;
}

/** The two rendered shares, still summing to 1: the short share is 1 − the rendered long share. */
function renderShares(long: Money, short: Money, decimals: number): [string, string] {
  if (long.plus(short).isZero()) return [statDecimal(ZERO, decimals), statDecimal(ZERO, decimals)];
  const l = statDecimal(long, decimals);
  return [l, ONE.minus(l).toFixed(decimals)];
}

/** Binance's wire row (the caller adds `symbol`): 4 decimals unless told, timestamp as a string. */
export function accountRatioRow(r: AccountRatio, timestamp: number, decimals = 4): AccountRatioRow {
  const [longAccount, shortAccount] = renderShares(r.longAccount, r.shortAccount, decimals);
  return {
    longShortRatio: statDecimal(r.longShortRatio, decimals),
    longAccount,
    shortAccount,
    timestamp: String(timestamp),
  };
}

export function positionRatioRow(r: PositionRatio, timestamp: number, decimals = 4): PositionRatioRow {
  const [longPosition, shortPosition] = renderShares(r.longPosition, r.shortPosition, decimals);
  return {
    longShortRatio: statDecimal(r.longShortRatio, decimals),
    longPosition,
    shortPosition,
    timestamp: String(timestamp),
  };
}

/** One side of a trade as positions see it. */
export interface TradeParty {
  user: string;
  side: TradeSide;
}

/**
 * One symbol's signed positions followed from its trades (each trade moves the maker and the taker
 * by its quantity), so market data can compute the ratios without asking the engine. Accounts whose
 * position returns to zero are dropped.
 */
export class SymbolPositions {
  private readonly sizes = new Map<string, Money>();

  constructor(initial: Iterable<[user: string, size: Money]> = []) {
    for (const [user, size] of initial) if (!size.isZero()) this.sizes.set(user, size);
  }

  /** Applies one trade's two sides (a self-trade moves the same account both ways). */
  applyTrade(qty: Money, maker: TradeParty, taker: TradeParty): void {
    this.applyFill(maker.user, maker.side, qty);
    this.applyFill(taker.user, taker.side, qty);
  }

  /** Applies one side of a fill and returns the account's new signed size. */
  applyFill(user: string, side: TradeSide, qty: Money): Money {
    const size = this.size(user).plus(side === 'BUY' ? qty : qty.negated());
    if (size.isZero()) this.sizes.delete(user);
    else this.sizes.set(user, size);
    return size;
  }

  size(user: string): Money {
    return this.sizes.get(user) ?? ZERO;
  }

  /** The live map (read-only view) to pass to the ratio functions. */
  get positions(): SignedPositions {
    return this.sizes;
  }
}
