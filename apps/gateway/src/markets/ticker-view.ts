import { type Market, Money, type Stats24h } from '@perp/domain';

/** The 24 h figures in decimal strings at the market's precisions (shared by FAPI and native views). */
export function tickerFigures(m: Market, s: Stats24h) {
  const change = s.last.minus(s.open);
  const percent = s.open.isZero() ? new Money(0) : change.div(s.open).times(100);
  const weighted = s.volume.isZero() ? new Money(0) : s.quoteVolume.div(s.volume);
  const px = (v: Money) => v.toFixed(m.pricePrecision);
  return {
    priceChange: px(change),
    priceChangePercent: percent.toFixed(3, Money.ROUND_HALF_UP),
    weightedAvgPrice: weighted.toFixed(m.pricePrecision, Money.ROUND_HALF_UP),
    lastPrice: px(s.last),
    lastQty: s.lastQty.toFixed(m.quantityPrecision),
    openPrice: px(s.open),
    highPrice: px(s.high),
    lowPrice: px(s.low),
    volume: s.volume.toFixed(m.quantityPrecision),
    quoteVolume: s.quoteVolume.toFixed(),
  };
}

/** FAPI 24 h ticker record (spec: firstId/lastId are trade timestamps in ms). */
export function fapiTicker(m: Market, s: Stats24h) {
  return {
    symbol: m.symbol,
    ...tickerFigures(m, s),
    openTime: s.openTime,
    closeTime: s.closeTime,
    firstId: s.firstTime,
    lastId: s.lastTime,
    count: s.count,
  };
}
