import type { Market } from '../markets/market';
import { isAboveZero, type Money } from '../money/money';
import type { Account } from './account';
import { commission, type FeeRates, type Liquidity } from './fees';
import type { IncomeRecord } from './income';
import {
  CLEARING_ACCOUNT,
  INSURANCE_FUND,
  FEE_ACCOUNT,
  walletOf,
  type LedgerAccount,
  type LedgerTransfer,
} from './ledger';
import { effectiveLeverage } from './margin';
import type { Side } from './order';
import { applyPositionTrade, positionClosingQty, type AccountPosition } from './position';
import { floorTo, SETTLEMENT_DECIMALS, proRata, ZERO } from './rounding';

/** One side of an engine trade, as the risk shard owning `user` settles it. */
export interface SettlementFill {
  user: string;
  /** The order it fills; absent (or unknown here) for liquidation and ADL fills, which froze nothing. */
  orderId?: string;
  symbol: string;
  side: Side;
  price: Money;
  qty: Money;
  liquidity: Liquidity;
  /** The engine's open/close split: the part of qty that closes the user's position. */
  closeQty: Money;
  /** The trade's UUID: the income records' tranId and tradeId. */
  tradeId: string;
  time: number;
  /** Liquidation and ADL fills of the liquidated side, and ADL fills of the counterparty: no commission. */
  feeExempt?: boolean;
}

export interface SettlementResult {
  closedQty: Money;
  openedQty: Money;
  realizedPnl: Money;
  commission: Money;
  /** Order margin that stopped being frozen for the filled quantity. */
  releasedFrozen: Money;
  /** Initial margin the opening part now holds in the position. */
  addedPositionMargin: Money;
  /** Position margin and isolated collateral the closing part freed. */
  releasedPositionMargin: Money;
  /** The order has no remaining quantity and is gone from the account. */
  orderDone: boolean;
  position: AccountPosition | undefined;
  /** REALIZED_PNL (when not zero) then COMMISSION (when not zero), both at the fill's time. */
  incomes: IncomeRecord[];
  transfers: LedgerTransfer[];
}

/** A signed amount for `user`'s wallet as a positive transfer to or from `other`. */
function walletTransfer(
  user: string,
  other: LedgerAccount,
  signed: Money,
  kind: LedgerTransfer['kind'],
  ref: string,
): LedgerTransfer[] {
  if (signed.isZero()) return [];
  const wallet = walletOf(user);
  return isAboveZero(signed)
    ? [{ from: other, to: wallet, amount: signed, kind, ref }]
    : [{ from: wallet, to: other, amount: signed.negated(), kind, ref }];
}

/**
 * Risk stage 2 for one fill: position, realized PnL, commission at the account's live VIP tier
 * (rates passed in), and the order's frozen margin. The filled quantity's share of the frozen
 * margin is released pro rata (all of it on the last fill); the opening part's initial margin at
 * the fill price is held by the position instead, so the difference returns to available.
 * Mutates the account's positions and orders; the wallet moves only through the returned
 * transfers, which the caller posts to the ledger. Throws when the engine's open/close split
 * disagrees with this copy of the position: the two copies have diverged, a bug to stop on.
 */
export function settleFill(
  account: Account,
  market: Market,
  fill: SettlementFill,
  rates: FeeRates,
  asset: string,
): SettlementResult {
  if (fill.symbol !== market.symbol) throw new Error(`fill ${fill.tradeId} is not for ${market.symbol}`);
  if (!isAboveZero(fill.qty) || !isAboveZero(fill.price))
    throw new Error(`fill ${fill.tradeId}: qty and price must be positive`);
  const order = fill.orderId === undefined ? undefined : account.order(fill.orderId);
  if (order && (order.symbol !== fill.symbol || order.side !== fill.side || fill.qty.gt(order.remaining)))
    throw new Error(`fill ${fill.tradeId} does not match order ${order.orderId}`);
  const before = account.position(fill.symbol);
  const expectedClose = positionClosingQty(before, fill.side, fill.qty);
  if (!expectedClose.eq(fill.closeQty))
    throw new Error(
      `fill ${fill.tradeId}: engine closes ${fill.closeQty.toFixed()}, risk position closes ${expectedClose.toFixed()}`,
    );

  const effect = applyPositionTrade(before, {
    symbol: fill.symbol,
    side: fill.side,
    qty: fill.qty,
    price: fill.price,
    leverage: order?.leverage ?? effectiveLeverage(market, account.leverage(market)),
    tradeId: fill.tradeId,
    time: fill.time,
  });
  account.putPosition(fill.symbol, effect.position);

  let releasedFrozen = ZERO;
  let orderDone = false;
  if (order) {
    orderDone = fill.qty.eq(order.remaining);
    releasedFrozen = orderDone
      ? order.frozen
      : proRata(order.frozen, fill.qty, order.remaining, SETTLEMENT_DECIMALS, 'down');
    if (orderDone) account.removeOrder(order.orderId);
    else account.fillOrder(order, fill.qty, releasedFrozen);
  }

  const fee = fill.feeExempt
    ? ZERO
    : commission(fill.qty.times(fill.price), fill.liquidity === 'MAKER' ? rates.maker : rates.taker);
  const base = {
    user: fill.user,
    symbol: fill.symbol,
    asset,
    time: fill.time,
    tranId: fill.tradeId,
    tradeId: fill.tradeId,
  };
  const incomes: IncomeRecord[] = [];
  if (!effect.realizedPnl.isZero())
    incomes.push(
      Object.assign(
        { incomeType: 'REALIZED_PNL' as const, income: effect.realizedPnl, info: fill.liquidity },
        base,
      ),
    );
  if (isAboveZero(fee))
    incomes.push(
      Object.assign({ incomeType: 'COMMISSION' as const, income: fee.negated(), info: fill.liquidity }, base),
    );

  return {
    closedQty: effect.closedQty,
    openedQty: effect.openedQty,
    realizedPnl: effect.realizedPnl,
    commission: fee,
    releasedFrozen,
    addedPositionMargin: effect.addedMargin,
    releasedPositionMargin: effect.releasedMargin.plus(effect.releasedCollateral),
    orderDone,
    position: effect.position,
    incomes,
    transfers: [
      ...walletTransfer(fill.user, CLEARING_ACCOUNT, effect.realizedPnl, 'REALIZED_PNL', fill.tradeId),
      ...walletTransfer(fill.user, FEE_ACCOUNT, fee.negated(), 'COMMISSION', fill.tradeId),
    ],
  };
}

/**
 * Cancel, expiry or rejection of an open order: all of its remaining frozen margin is released.
 * Returns undefined for an order the account does not hold (already finished: idempotent).
 */
export function releaseOrderMargin(account: Account, orderId: string): Money | undefined {
  return account.removeOrder(orderId)?.frozen;
}

export interface FundingSettlement {
  /** Undefined when there is no position or the payment rounds to zero. */
  income: IncomeRecord | undefined;
  transfers: LedgerTransfer[];
}

/**
 * Funding of one position: income = -size x markPrice x rate (longs pay a positive rate), rounded
 * down to 8 decimals (a payer pays the dust, a receiver forgoes it). It clears through the
 * insurance fund, so with long OI = short OI a funding round leaves the fund the dust and nothing
 * else. It settles to the wallet in every margin mode.
 */
export function settleFunding(
  account: Account,
  symbol: string,
  fundingRate: Money,
  markPrice: Money,
  time: number,
  fundingId: string,
  asset: string,
): FundingSettlement {
  const p = account.position(symbol);
  if (!p) return { income: undefined, transfers: [] };
  const income = floorTo(p.size.times(markPrice).times(fundingRate).negated());
  if (income.isZero()) return { income: undefined, transfers: [] };
  return {
    income: {
      user: account.user,
      symbol,
      incomeType: 'FUNDING_FEE',
      income,
      asset,
      info: fundingRate.toFixed(),
      time,
      tranId: fundingId,
      tradeId: fundingId,
    },
    transfers: walletTransfer(account.user, INSURANCE_FUND, income, 'FUNDING_FEE', fundingId),
  };
}
