import type { TradeEntity } from '@perp/persistence';

/**
 * One row of GET /fapi/v1/userTrades (Binance "Account Trade List"): the caller's side of a fill.
 * `id` is the trade's UUID (both sides of a match share it), `buyer` follows from the side.
 */
export function userTradeView(t: TradeEntity) {
  return {
    symbol: t.symbol,
    id: t.id,
    orderId: t.orderId,
    side: t.side,
    price: t.price,
    qty: t.qty,
    realizedPnl: t.realizedPnl,
    quoteQty: t.quoteQty,
    commission: t.commission,
    commissionAsset: t.commissionAsset,
    time: t.time,
    positionSide: 'BOTH',
    maker: t.maker,
    buyer: t.side === 'BUY',
  };
}
