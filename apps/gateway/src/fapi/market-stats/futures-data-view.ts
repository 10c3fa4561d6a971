import {
  type AccountRatio,
  type Candle,
  accountRatioRow,
  type FilledBucket,
  flatCandle,
  Money,
  openInterestRow,
  positionRatioRow,
  type StatsPeriod,
  takerVolume,
  takerVolumeRow,
} from '@perp/domain';
import type { MarketCandleEntity, MarketStatisticEntity } from '@perp/persistence';
import { totalOpenInterest } from '../../native/trading/open-interest-view';

type Filled = readonly FilledBucket<MarketStatisticEntity>[];

const ZERO = new Money(0);
const m = (v: string) => new Money(v);

function shares(long: Money, short: Money): AccountRatio {
  return { longAccount: long, shortAccount: short, longShortRatio: short.isZero() ? ZERO : long.div(short) };
}

/**
 * /futures/data/openInterestHist rows. The store keeps one side of the market (the longs, as
 * Binance counts); the rows answer the spec's total (long + short, equal sides), the same
 * definition as GET /fapi/v1/openInterest, so the latest row and openInterest agree.
 */
export function openInterestHistRows(symbol: string, filled: Filled) {
  return filled.map(({ time, point }) => {
    const oi = m(point.openInterest);
    const value = m(point.openInterestValue);
    const row = openInterestRow({
      timestamp: time,
      time,
      sumOpenInterest: totalOpenInterest({ long: oi, short: oi }),
      sumOpenInterestValue: totalOpenInterest({ long: value, short: value }),
    });
    return { symbol, ...row };
  });
}

/** /futures/data/globalLongShortAccountRatio (all accounts) or topLongShortAccountRatio (top 20 %). */
export function accountRatioRows(symbol: string, filled: Filled, accounts: 'all' | 'top') {
  return filled.map(({ time, point }) => {
    const r =
      accounts === 'all'
        ? shares(m(point.longAccounts), m(point.shortAccounts))
        : shares(m(point.topLongAccounts), m(point.topShortAccounts));
    return { symbol, ...accountRatioRow(r, time) };
  });
}

/**
 * /futures/data/topLongShortPositionRatio. Binance USDⓈ-M names the position shares
 * `longAccount` / `shortAccount` on this endpoint (COIN-M says longPosition / shortPosition);
 * the USDⓈ-M names are kept, so clients written for it parse the rows.
 */
export function positionRatioRows(symbol: string, filled: Filled) {
  return filled.map(({ time, point }) => {
    const long = m(point.topLongPositions);
    const short = m(point.topShortPositions);
    const row = positionRatioRow(
      { longPosition: long, shortPosition: short, longShortRatio: shares(long, short).longShortRatio },
      time,
    );
    return {
      symbol,
      longShortRatio: row.longShortRatio,
      longAccount: row.longPosition,
      shortAccount: row.shortPosition,
      timestamp: row.timestamp,
    };
  });
}

/** A stored candle as the domain's Candle. */
function candleOf(c: MarketCandleEntity): Candle {
  return {
    openTime: c.openTime,
    closeTime: c.closeTime,
    open: m(c.open),
    high: m(c.high),
    low: m(c.low),
    close: m(c.close),
    volume: m(c.volume),
    quoteVolume: m(c.quoteVolume),
    count: c.count,
    takerBuyVolume: m(c.takerBuyVolume),
    takerBuyQuoteVolume: m(c.takerBuyQuoteVolume),
  };
}

/**
 * /futures/data/takerlongshortRatio rows from the last-price candles of the period's interval. A
 * bucket without trades has no candle: a flat one, zero volume (the domain's ratio for it is 0).
 */
export function takerVolumeRows(period: StatsPeriod, filled: readonly FilledBucket<MarketCandleEntity>[]) {
  return filled.map(({ time, point, carried }) =>
    takerVolumeRow(takerVolume(carried ? flatCandle(period, time, m(point.close)) : candleOf(point))),
  );
}
