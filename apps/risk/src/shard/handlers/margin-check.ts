import { deterministicUuid, outputId } from '@perp/contracts';
import {
  INSURANCE_FUND,
  insuranceReserve,
  isIsolated,
  isLiquidatable,
  isMarginCall,
  marginStates,
  Money,
  planLiquidation,
  type Account,
  type LiquidationPlan,
  type MarginState,
} from '@perp/domain';
import type { LiquidationInFlight } from '../risk-partition';
import { forwarded, type RiskContext } from './risk-context';

/**
 * Margin monitoring of the partition's accounts, run on every mark (the holders of the symbol) and
 * after every fill (its user). Per margin state (a cross account, or one isolated position):
 * - a `marginCall` account event when the ratio reaches MARGIN_CALL_LEVEL (80 %), once per
 *   crossing (the state is remembered until the ratio falls below it again);
 * - when liquidatable, not already in liquidation and its market trading: `order.cancelAll` for every symbol where
 *   the account has open orders (cross; isolated: the position's symbol), their margin coming
 *   back with the canceled events, then `liquidation.place` for the planned step, and the
 *   liquidation is kept in flight until its `liquidation.done`.
 * `index` numbers the engine commands this input forwards (the engine dedupes by it); returns the
 * next one. `symbol` (a mark) limits isolated accounts to that position.
 */
export function checkMargins(
  ctx: RiskContext,
  users: readonly string[],
  index: number,
  time: number,
  symbol?: string,
): number {
  const { p } = ctx;
  const markets = (s: string) => ctx.markets.find(s);
  for (const user of users) {
    const account = p.book.find(user);
    if (!account) continue;
    for (const state of marginStates(account, p.book.markPrices, markets, symbol)) {
      marginCall(ctx, account, state);
      if (!isLiquidatable(state) || p.inLiquidation(user, state.symbol)) continue;
      const plan = planLiquidation(account, state, p.book.markPrices, markets, insuranceAvailable(ctx));
      // A halted or closed market cannot fill it: the next mark after it trades again will.
      if (plan && markets(plan.symbol)?.status === 'TRADING')
        index = liquidate(ctx, account, plan, index, time);
    }
  }
  return index;
}

/** The partition's insurance share less what liquidations in flight may still draw on it. */
function insuranceAvailable(ctx: RiskContext): Money {
  let reserved = new Money(0);
  for (const l of ctx.p.liquidations.values()) reserved = reserved.plus(l.reserve);
  return ctx.p.book.ledger.balance(INSURANCE_FUND).minus(reserved);
}

function marginCall(ctx: RiskContext, account: Account, state: MarginState): void {
  const { p, out } = ctx;
  const key = state.symbol === undefined ? account.user : `${account.user}|${state.symbol}`;
  if (!isMarginCall(state)) {
    p.marginCalls.delete(key);
    return;
  }
  if (p.marginCalls.has(key)) return;
  p.marginCalls.add(key);
  const isolated = isIsolated(account.marginMode);
  const b = p.book.balances(account.user);
  out.accountEvents.push({
    type: 'marginCall',
    user: account.user,
    crossWalletBalance: b.walletBalance.minus(b.isolatedMargin).toFixed(),
    positions: p.book
      .positions(account.user)
      .filter((v) => state.symbol === undefined || v.symbol === state.symbol)
      .map((v) => ({
        symbol: v.symbol,
        positionSide: v.size.gt(0) ? ('LONG' as const) : ('SHORT' as const),
        positionAmt: v.size.toFixed(),
        marginType: isolated ? ('ISOLATED' as const) : ('CROSSED' as const),
        isolatedWallet: v.isolatedMargin.toFixed(),
        markPrice: v.markPrice.toFixed(),
        unrealizedPnl: v.unrealizedPnl.toFixed(),
        maintMargin: v.maintenanceMargin.toFixed(),
      })),
  });
}

/** Cancels what holds margin, sends the liquidation order, keeps it in flight. */
function liquidate(
  ctx: RiskContext,
  account: Account,
  plan: LiquidationPlan,
  index: number,
  time: number,
): number {
  const { p, m, out } = ctx;
  const user = account.user;
  const symbols = new Set(
    account
      .openOrders()
      .map((o) => o.symbol)
      .filter((s) => plan.marginMode === 'CROSS' || s === plan.symbol),
  );
  for (const symbol of [...symbols].sort()) {
    out.engineCommands.push({ ...engineEnvelope(ctx, time, index++), type: 'order.cancelAll', user, symbol });
  }
  const place = index++;
  const liquidationId = deterministicUuid(`liquidation:${outputId(m.topic, m.partition, m.offset, place)}`);
  const command = {
    ...engineEnvelope(ctx, time, place),
    type: 'liquidation.place' as const,
    liquidationId,
    user,
    symbol: plan.symbol,
    side: plan.side,
    quantity: plan.quantity.toFixed(),
    bankruptcyPrice: plan.bankruptcyPrice.toFixed(),
    limitPrice: plan.limitPrice.toFixed(),
    markPrice: plan.markPrice.toFixed(),
    marginMode: plan.marginMode,
  };
  out.engineCommands.push(command);
  const entry: LiquidationInFlight = {
    liquidationId,
    user,
    symbol: plan.symbol,
    marginMode: plan.marginMode,
    side: plan.side,
    quantity: command.quantity,
    bankruptcyPrice: command.bankruptcyPrice,
    limitPrice: command.limitPrice,
    reserve: insuranceReserve(plan.side, plan.bankruptcyPrice, plan.limitPrice, plan.quantity).toFixed(),
    time,
    fee: '0',
    executedQty: '0',
    cumQuote: '0',
    updateTime: time,
  };
  p.liquidations.set(liquidationId, entry);
  return index;
}

/** A forwarded command's envelope without a reply address: nobody waits for these. */
function engineEnvelope(ctx: RiskContext, time: number, index: number) {
  const { replyTo: _replyTo, ...envelope } = forwarded(ctx, time, index);
  return envelope;
}
