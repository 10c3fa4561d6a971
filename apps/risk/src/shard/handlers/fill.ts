import type { EngineEvent } from '@perp/contracts';
import { decimal, entryPrice, type Market, type Money, type SettlementResult } from '@perp/domain';
import { isOpen, recordFill } from '../order-records';
import { finishAlgoOf } from './algo-records';
import { settleForcedFill } from './forced-fill';
import { balanceEvent, type RiskContext } from './risk-context';

export type Trade = Extract<EngineEvent, { type: 'trade' }>;

/**
 * One side of a fill, in the owner's partition: fee at the live VIP tier, realized PnL on the
 * closing part, the position; then the trade, income, order, position and balance events.
 */
export function settleFill(ctx: RiskContext, trade: Trade, liquidity: 'MAKER' | 'TAKER'): void {
  const { p, out } = ctx;
  const side = liquidity === 'MAKER' ? trade.maker : trade.taker;
  const market = ctx.markets.find(trade.symbol);
  if (!market) throw new Error(`trade ${trade.tradeId} of unknown market ${trade.symbol}`);
  const price = decimal(trade.price);
  const qty = decimal(trade.qty);
  const quote = price.times(qty);
  const fill = {
    user: side.user,
    orderId: side.orderId,
    symbol: trade.symbol,
    side: side.side,
    price,
    qty,
    liquidity,
    closeQty: decimal(side.split.close),
    tradeId: trade.tradeId,
    time: trade.time,
  };
  // A liquidation's maker pays its fee as on any fill; its taker and both sides of ADL settle forced.
  const r: SettlementResult =
    trade.kind === 'ADL' || (trade.kind === 'LIQUIDATION' && liquidity === 'TAKER')
      ? settleForcedFill(ctx, trade, liquidity, fill)
      : p.book.settleFill(fill);
  const user = side.user;
  if (out.recording) tradeEvents(ctx, trade, liquidity, r, quote);
  const rec = p.openOrder(side.orderId);
  if (rec) {
    const next = recordFill(rec, { qty, price, quote, time: trade.time }, market);
    if (isOpen(next)) p.put(next);
    else {
      p.close(next);
      finishAlgoOf(ctx, next.orderId, trade.time);
      out.closed.push(next);
    }
    if (out.recording) out.accountEvents.push({ type: 'order', user, order: next });
  }
  if (out.recording) positionEvent(ctx, user, trade.symbol, market);
  balanceEvent(ctx, user);
}

/** The fill's trade and income events (a replayed input's are on the log: see Output.recording). */
function tradeEvents(
  ctx: RiskContext,
  trade: Trade,
  liquidity: 'MAKER' | 'TAKER',
  r: SettlementResult,
  quote: Money,
): void {
  const side = liquidity === 'MAKER' ? trade.maker : trade.taker;
  const user = side.user;
  ctx.out.accountEvents.push({
    type: 'trade',
    user,
    trade: {
      tradeId: trade.tradeId,
      orderId: side.orderId,
      user,
      symbol: trade.symbol,
      side: side.side,
      price: trade.price,
      qty: trade.qty,
      quoteQty: quote.toFixed(),
      commission: r.commission.abs().toFixed(),
      commissionAsset: ctx.asset,
      realizedPnl: r.realizedPnl.toFixed(),
      maker: liquidity === 'MAKER',
      time: trade.time,
    },
  });
  for (const income of r.incomes)
    ctx.out.accountEvents.push({
      type: 'income',
      user,
      symbol: income.symbol,
      incomeType: income.incomeType,
      income: income.income.toFixed(),
      asset: 'USDT',
      tradeId: income.tradeId,
      info: income.info,
    });
}

/** This symbol's position only: the account's position views would price every position. */
function positionEvent(ctx: RiskContext, user: string, symbol: string, market: Market): void {
  const account = ctx.p.book.account(user);
  const position = account.position(symbol);
  ctx.out.accountEvents.push({
    type: 'position',
    user,
    symbol,
    size: position ? position.size.toFixed() : '0',
    entryPrice: position ? entryPrice(position).toFixed() : '0',
    leverage: position?.leverage ?? account.leverage(market),
  });
}
