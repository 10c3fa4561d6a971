import { type Candle, klineRow, type KlineRow, type Market, Money } from '@perp/domain';
import type { MarketCandleEntity } from '@perp/persistence';

/** A stored candle as the domain's Candle. */
export function candleOf(row: MarketCandleEntity): Candle {
  return {
    openTime: row.openTime,
    closeTime: row.closeTime,
    open: new Money(row.open),
    high: new Money(row.high),
    low: new Money(row.low),
    close: new Money(row.close),
    volume: new Money(row.volume),
    quoteVolume: new Money(row.quoteVolume),
    count: row.count,
    takerBuyVolume: new Money(row.takerBuyVolume),
    takerBuyQuoteVolume: new Money(row.takerBuyQuoteVolume),
  };
}

/**
 * A last-price kline (`klines`, `continuousKlines`): prices at the market's tick, volumes at its lot,
 * quote volumes at both (exact: a tick times a lot needs no more decimals), taker-buy volumes real.
 */
export function tradeKlineRow(m: Market, c: Candle): KlineRow {
  return klineRow(c, {
    priceDecimals: m.pricePrecision,
    qtyDecimals: m.quantityPrecision,
    quoteDecimals: m.pricePrecision + m.quantityPrecision,
  });
}

/** Decimals of mark, index and premium-index prices on the wire (Binance's: "9653.29201333"). */
export const PRICE_SERIES_DECIMALS = 8;

/**
 * A price-series kline (`markPriceKlines`, `indexPriceKlines`, `premiumIndexKlines`) as Binance
 * answers it: OHLC, count = samples of the bucket, and "0" in every volume position.
 */
export function priceKlineRow(c: Candle): KlineRow {
  const px = (v: Money) => v.toFixed(PRICE_SERIES_DECIMALS, Money.ROUND_HALF_UP);
  return [
    c.openTime,
    px(c.open),
    px(c.high),
    px(c.low),
    px(c.close),
    '0',
    c.closeTime,
    '0',
    c.count,
    '0',
    '0',
    '0',
  ];
}
