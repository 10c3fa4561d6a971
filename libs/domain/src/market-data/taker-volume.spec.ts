import { Money } from '../money/money';
import { applyTrade, type Candle, flatCandle } from './candles';
import { takerVolume, takerVolumeRow } from './taker-volume';

const T = Date.UTC(2026, 0, 1, 0, 5);
const m = (v: string) => new Money(v);
const candle = (buys: string[], sells: string[]): Candle => {
  let c: Candle | undefined;
  for (const q of buys) c = applyTrade(c, '5m', { time: T, price: m('100'), qty: m(q), takerSide: 'BUY' });
  for (const q of sells) c = applyTrade(c, '5m', { time: T, price: m('100'), qty: m(q), takerSide: 'SELL' });
  return c ?? flatCandle('5m', T, m('100'));
};

describe('takerVolume', () => {
  it('splits the volume strictly by taker side', () => {
    const p = takerVolume(candle(['1.5', '0.25'], ['0.7']));
    expect(takerVolumeRow(p)).toEqual({
      buySellRatio: '2.5000',
      buyVol: '1.7500',
      sellVol: '0.7000',
      timestamp: String(T),
    });
  });

  it('rounds the ratio half up at the chosen precision', () => {
    // 2 / 3 = 0.666..., 1 / 3 = 0.333...
    expect(takerVolumeRow(takerVolume(candle(['2'], ['3']))).buySellRatio).toBe('0.6667');
    expect(takerVolumeRow(takerVolume(candle(['1'], ['3'])), 2).buySellRatio).toBe('0.33');
  });

  it('answers 0 when nothing was sold by takers, and all zeros for an empty period', () => {
    expect(takerVolumeRow(takerVolume(candle(['2'], [])))).toEqual({
      buySellRatio: '0.0000',
      buyVol: '2.0000',
      sellVol: '0.0000',
      timestamp: String(T),
    });
    expect(takerVolumeRow(takerVolume(candle([], [])))).toEqual({
      buySellRatio: '0.0000',
      buyVol: '0.0000',
      sellVol: '0.0000',
      timestamp: String(T),
    });
    expect(takerVolume(candle([], ['1'])).buySellRatio.toFixed()).toBe('0');
  });
});
