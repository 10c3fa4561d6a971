import { aggTradeRow, type Market, Money } from '@perp/domain';
import type { MarketAggTradeEntity, MarketTradeEntity } from '@perp/persistence';

/**
 * A public trade of `trades` and `historicalTrades`: `id` is the symbol's trade sequence (what
 * `fromId` pages by); the buyer was the maker when the taker sold.
 */
export function publicTradeView(m: Market, t: MarketTradeEntity) {
  return {
    id: t.id,
    price: new Money(t.price).toFixed(m.pricePrecision),
    qty: new Money(t.qty).toFixed(m.quantityPrecision),
    quoteQty: new Money(t.quoteQty).toFixed(),
    time: t.time,
    isBuyerMaker: t.takerSide === 'SELL',
  };
}

/** An aggregate trade `{a, p, q, f, l, T, m}` at the market's precisions. */
export function aggTradeView(m: Market, a: MarketAggTradeEntity) {
  return aggTradeRow(
    {
      a: a.id,
      p: new Money(a.price),
      q: new Money(a.qty),
      f: a.firstId,
      l: a.lastId,
      T: a.time,
      m: a.buyerMaker,
    },
    { priceDecimals: m.pricePrecision, qtyDecimals: m.quantityPrecision },
  );
}
