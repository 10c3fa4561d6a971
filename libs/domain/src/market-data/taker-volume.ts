import type { Money } from '../money/money';
import type { Candle } from './candles';
import { ratioOrZero, statDecimal } from './ratios';

/** Buy and sell volume of one period by taker side (`/futures/data/takerlongshortRatio`). */
export interface TakerVolumePoint {
  /** The period's open time (as a kline's openTime). */
  timestamp: number;
  buyVol: Money;
  sellVol: Money;
  /** buyVol / sellVol; 0 when sellVol is 0. */
  buySellRatio: Money;
}

/**
 * The taker volume of a period from the trade candle of that period's interval (every period is a
 * kline interval): bought by takers = takerBuyVolume, sold by takers = the rest of the volume.
 */
export function takerVolume(candle: Candle): TakerVolumePoint {
  const buyVol = candle.takerBuyVolume;
  const sellVol = candle.volume.minus(buyVol);
  return { timestamp: candle.openTime, buyVol, sellVol, buySellRatio: ratioOrZero(buyVol, sellVol) };
}

export interface TakerVolumeRow {
  buySellRatio: string;
  buyVol: string;
  sellVol: string;
  timestamp: string;
}

/** Binance's wire row: 4 decimals (rounded half up) unless told, timestamp as a string. */
export function takerVolumeRow(p: TakerVolumePoint, decimals = 4): TakerVolumeRow {
  return {
    buySellRatio: statDecimal(p.buySellRatio, decimals),
    buyVol: statDecimal(p.buyVol, decimals),
    sellVol: statDecimal(p.sellVol, decimals),
    timestamp: String(p.timestamp),
  };
}
