import { fillForward } from '@perp/domain';
import type { MarketCandleEntity, MarketStatisticEntity } from '@perp/persistence';
import {
  accountRatioRows,
  openInterestHistRows,
  positionRatioRows,
  takerVolumeRows,
} from './futures-data-view';

const MIN = 60_000;
const T0 = Date.UTC(2026, 4, 12);
const at = (minutes: number) => T0 + minutes * MIN;

const stat = (minutes: number, f: Partial<MarketStatisticEntity>): MarketStatisticEntity => ({
  symbol: 'BTCUSDT',
  period: '5m',
  time: at(minutes),
  openInterest: '1.5',
  openInterestValue: '148.5',
  longAccounts: '0.5',
  shortAccounts: '0.5',
  topLongAccounts: '1',
  topShortAccounts: '0',
  topLongPositions: '0.6',
  topShortPositions: '0.4',
  ...f,
});

const stats = [
  stat(0, {}),
  stat(10, {
    openInterest: '2',
    openInterestValue: '202.123456789',
    longAccounts: '0.6666666667',
    shortAccounts: '0.3333333333',
    topLongAccounts: '0',
    topShortAccounts: '1',
    topLongPositions: '0',
    topShortPositions: '0',
  }),
];
const filled = fillForward([0, 5, 10].map(at), stats, (s) => s.time);

describe('futures-data rows', () => {
  it("openInterestHist: the spec's total (both sides), carried through quiet buckets", () => {
    expect(openInterestHistRows('BTCUSDT', filled)).toEqual([
      {
        symbol: 'BTCUSDT',
        sumOpenInterest: '3.00000000',
        sumOpenInterestValue: '297.00000000',
        timestamp: String(at(0)),
      },
      {
        symbol: 'BTCUSDT',
        sumOpenInterest: '3.00000000',
        sumOpenInterestValue: '297.00000000',
        timestamp: String(at(5)),
      },
      {
        symbol: 'BTCUSDT',
        sumOpenInterest: '4.00000000',
        sumOpenInterestValue: '404.24691358',
        timestamp: String(at(10)),
      },
    ]);
  });

  it('account ratios: all accounts or the top ones, 4 decimals, ratio 0 with nobody short', () => {
    expect(accountRatioRows('BTCUSDT', filled, 'all')).toEqual([
      {
        symbol: 'BTCUSDT',
        longShortRatio: '1.0000',
        longAccount: '0.5000',
        shortAccount: '0.5000',
        timestamp: String(at(0)),
      },
      {
        symbol: 'BTCUSDT',
        longShortRatio: '1.0000',
        longAccount: '0.5000',
        shortAccount: '0.5000',
        timestamp: String(at(5)),
      },
      {
        symbol: 'BTCUSDT',
        longShortRatio: '2.0000',
        longAccount: '0.6667',
        shortAccount: '0.3333',
        timestamp: String(at(10)),
      },
    ]);
    expect(
      accountRatioRows('BTCUSDT', filled, 'top').map((r) => [
        r.longShortRatio,
        r.longAccount,
        r.shortAccount,
      ]),
    ).toEqual([
      ['0.0000', '1.0000', '0.0000'],
      ['0.0000', '1.0000', '0.0000'],
      ['0.0000', '0.0000', '1.0000'],
    ]);
  });

  it("position ratio: USDⓈ-M's field names (longAccount / shortAccount hold the position shares)", () => {
    expect(positionRatioRows('BTCUSDT', filled)).toEqual([
      {
        symbol: 'BTCUSDT',
        longShortRatio: '1.5000',
        longAccount: '0.6000',
        shortAccount: '0.4000',
        timestamp: String(at(0)),
      },
      {
        symbol: 'BTCUSDT',
        longShortRatio: '1.5000',
        longAccount: '0.6000',
        shortAccount: '0.4000',
        timestamp: String(at(5)),
      },
      // No position left: every figure 0 (the domain's rule).
      {
        symbol: 'BTCUSDT',
        longShortRatio: '0.0000',
        longAccount: '0.0000',
        shortAccount: '0.0000',
        timestamp: String(at(10)),
      },
    ]);
  });

  it('taker volume: by taker side from the candle; a bucket without trades is zero volume', () => {
    const candle = (minutes: number, volume: string, takerBuy: string): MarketCandleEntity => ({
      symbol: 'BTCUSDT',
      series: 'last',
      interval: '5m',
      openTime: at(minutes),
      closeTime: at(minutes + 5) - 1,
      open: '100',
      high: '100',
      low: '100',
      close: '100',
      volume,
      quoteVolume: '0',
      count: 2,
      takerBuyVolume: takerBuy,
      takerBuyQuoteVolume: '0',
    });
    const candles = [candle(0, '3', '1'), candle(10, '2', '2')];
    const rows = takerVolumeRows(
      '5m',
      fillForward([0, 5, 10, 15].map(at), candles, (c) => c.openTime),
    );
    expect(rows).toEqual([
      { buySellRatio: '0.5000', buyVol: '1.0000', sellVol: '2.0000', timestamp: String(at(0)) },
      { buySellRatio: '0.0000', buyVol: '0.0000', sellVol: '0.0000', timestamp: String(at(5)) },
      { buySellRatio: '0.0000', buyVol: '2.0000', sellVol: '0.0000', timestamp: String(at(10)) },
      { buySellRatio: '0.0000', buyVol: '0.0000', sellVol: '0.0000', timestamp: String(at(15)) },
    ]);
  });
});
