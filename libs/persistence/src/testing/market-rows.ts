import type { MarketTickerMinuteEntity } from '../entities';

/** A BTCUSDT ticker minute opening at `openTime` and closing at `close` (test rows). */
export function tickerMinute(openTime: number, close: string): MarketTickerMinuteEntity {
  return {
    symbol: 'BTCUSDT',
    openTime,
    open: '1',
    high: '2',
    low: '1',
    close,
    volume: '1',
    quoteVolume: '1.5',
    count: 2,
    firstTime: openTime + 1,
    lastTime: openTime + 2,
    lastQty: '0.5',
  };
}
