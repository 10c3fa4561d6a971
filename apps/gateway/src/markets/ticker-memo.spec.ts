import type { TickerState } from '@perp/contracts';
import { BTC } from './market.fixture';
import { bookTopOf } from '@perp/contracts';
import { BookTickerMemo, TickerMemo } from './ticker-memo';
import { bookTicker, fapiTicker, feedPrice, stats24h } from './ticker-view';

const T0 = Date.UTC(2026, 2, 16);
const state = (last: string): TickerState => ({
  openTime: T0 - 86_400_000,
  closeTime: T0,
  open: '100',
  high: '110',
  low: '90',
  last,
  lastQty: '0.5',
  volume: '3',
  quoteVolume: '300',
  count: 3,
  firstTime: T0 - 1000,
  lastTime: T0 - 10,
  lastTradeId: 3,
  lastPrice: last,
});

describe('TickerMemo', () => {
  it('renders a projected state once and answers the same view while it is unchanged', () => {
    const memo = new TickerMemo(fapiTicker);
    const raw = JSON.stringify(state('105'));
    const first = memo.view(BTC, raw, T0);
    expect(first).toEqual(fapiTicker(BTC, stats24h(state('105'), T0)));
    expect(memo.view(BTC, raw, T0 + 5000)).toBe(first);
  });

  it('renders again when the projected state or the market changes', () => {
    const memo = new TickerMemo(fapiTicker);
    const first = memo.view(BTC, JSON.stringify(state('105')), T0);
    const traded = memo.view(BTC, JSON.stringify(state('106')), T0);
    expect(traded.lastPrice).toBe('106.0');
    expect(memo.view({ ...BTC }, JSON.stringify(state('106')), T0)).not.toBe(traded);
    expect(first.lastPrice).toBe('105.0');
  });

  it('renders a never-traded market at each request time', () => {
    const memo = new TickerMemo(fapiTicker);
    expect(memo.view(BTC, undefined, T0).closeTime).toBe(T0);
    expect(memo.view(BTC, undefined, T0 + 1).closeTime).toBe(T0 + 1);
  });
});

describe('BookTickerMemo', () => {
  const top = { bidPrice: '100', bidQty: '1', askPrice: '101', askQty: '2', seq: '7', time: String(T0) };
  const feed = { indexPrice: '100.5', time: String(T0 - 5) };

  it('answers the same view while the book top and the feed are unchanged', () => {
    const memo = new BookTickerMemo();
    const first = memo.view(BTC, top, feed, T0 + 10);
    expect(first).toEqual(bookTicker(BTC, bookTopOf(BTC.symbol, top), feedPrice(feed), T0 + 10));
    expect(memo.view(BTC, { ...top }, { ...feed }, T0 + 20)).toBe(first);
    const moved = memo.view(BTC, { ...top, bidQty: '3', seq: '8' }, feed, T0 + 20);
    expect([moved.bidQty, moved.lastUpdateId]).toEqual(['3.000', 8]);
    // An empty field and a missing one read differently (seq '' is 0, none is -1): never confused.
    expect(memo.view(BTC, { ...top, seq: '' }, feed, T0).lastUpdateId).toBe(0);
  });

  it('renders a view timed by the request each time', () => {
    const memo = new BookTickerMemo();
    expect(memo.view(BTC, {}, {}, T0).time).toBe(T0);
    expect(memo.view(BTC, {}, {}, T0 + 1).time).toBe(T0 + 1);
  });
});
