import type { BookTop, TickerState } from '@perp/contracts';
import { Money } from '@perp/domain';
import { BTC } from './market.fixture';
import { bookTicker, fapiTicker, feedPrice, stats24h, tickerPrice } from './ticker-view';

const NOW = Date.UTC(2026, 2, 16, 12);
const DAY = 24 * 3600_000;

const state = (fields: Partial<TickerState> = {}): TickerState => ({
  openTime: NOW - DAY,
  closeTime: NOW,
  open: '100',
  high: '110.5',
  low: '95',
  last: '105',
  lastQty: '0.25',
  volume: '3',
  quoteVolume: '311.5',
  count: 4,
  firstTime: NOW - 5000,
  lastTime: NOW - 1000,
  lastTradeId: 9,
  lastPrice: '105',
  ...fields,
});

describe('24 h ticker views', () => {
  it('renders the projected figures at the market precisions, vwap = quoteVolume / volume', () => {
    expect(fapiTicker(BTC, stats24h(state(), NOW))).toEqual({
      symbol: 'BTCUSDT',
      priceChange: '5.0',
      priceChangePercent: '5.000',
      weightedAvgPrice: '103.8', // 311.5 / 3 = 103.8333…
      lastPrice: '105.0',
      lastQty: '0.250',
      openPrice: '100.0',
      highPrice: '110.5',
      lowPrice: '95.0',
      volume: '3.000',
      quoteVolume: '311.5',
      openTime: NOW - DAY,
      closeTime: NOW,
      firstId: NOW - 5000,
      lastId: NOW - 1000,
      count: 4,
    });
  });

  it('a market never traded: zeros over the 24 h before now', () => {
    const t = fapiTicker(BTC, stats24h(undefined, NOW));
    expect(t).toMatchObject({ lastPrice: '0.0', weightedAvgPrice: '0.0', volume: '0.000', count: 0 });
    expect([t.openTime, t.closeTime, t.firstId, t.lastId]).toEqual([NOW - DAY, NOW, 0, 0]);
  });

  it('a quiet day keeps the last price, with no change and no volume', () => {
    const quiet = state({
      open: '0',
      high: '0',
      low: '0',
      last: '0',
      volume: '0',
      quoteVolume: '0',
      count: 0,
    });
    expect(fapiTicker(BTC, stats24h({ ...quiet, firstTime: 0, lastTime: 0 }, NOW))).toMatchObject({
      priceChange: '0.0',
      priceChangePercent: '0.000',
      lastPrice: '105.0',
      openPrice: '105.0',
      highPrice: '105.0',
      weightedAvgPrice: '0.0',
      count: 0,
    });
  });

  it('ticker/price: the last price and the last trade time', () => {
    expect(tickerPrice(BTC, stats24h(state(), NOW))).toEqual({
      symbol: 'BTCUSDT',
      price: '105.0',
      time: NOW - 1000,
    });
    expect(tickerPrice(BTC, stats24h(undefined, NOW))).toEqual({
      symbol: 'BTCUSDT',
      price: '0.0',
      time: NOW,
    });
  });
});

describe('book ticker view', () => {
  const top = (bid: [string, string], ask: [string, string], seq = 7): BookTop => ({
    symbol: 'BTCUSDT',
    bid: { price: new Money(bid[0]), qty: new Money(bid[1]) },
    ask: { price: new Money(ask[0]), qty: new Money(ask[1]) },
    seq,
    time: NOW - 10,
  });
  const feed = feedPrice({ markPrice: '50000.04', indexPrice: '50000.12', time: String(NOW - 500) });

  it('the projected top with its engine sequence as lastUpdateId', () => {
    expect(bookTicker(BTC, top(['49999.9', '1.5'], ['50000.1', '0.25']), feed, NOW)).toEqual({
      symbol: 'BTCUSDT',
      bidPrice: '49999.9',
      bidQty: '1.500',
      askPrice: '50000.1',
      askQty: '0.250',
      time: NOW - 10,
      lastUpdateId: 7,
    });
  });

  it('an empty book: the feed price on both sides, quantities "0"', () => {
    expect(bookTicker(BTC, top(['0', '0'], ['0', '0'], -1), feed, NOW)).toEqual({
      symbol: 'BTCUSDT',
      bidPrice: '50000.1',
      bidQty: '0',
      askPrice: '50000.1',
      askQty: '0',
      time: NOW - 500,
      lastUpdateId: 0,
    });
    expect(bookTicker(BTC, top(['0', '0'], ['0', '0'], -1), feedPrice({}), NOW)).toMatchObject({
      bidPrice: '0.0',
      time: NOW,
    });
  });

  it('one empty side takes the feed price, the other stays', () => {
    expect(bookTicker(BTC, top(['49000', '2'], ['0', '0']), feed, NOW)).toMatchObject({
      bidPrice: '49000.0',
      bidQty: '2.000',
      askPrice: '50000.1',
      askQty: '0',
    });
  });
});
