import { Money } from '../money/money';
import { Rolling24h } from './rolling-24h';

const m = (v: string) => new Money(v);
const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

describe('Rolling24h', () => {
  it('is all zeros with no trades', () => {
    const s = new Rolling24h().stats(T0);
    expect(s.count).toBe(0);
    expect(s.last.toString()).toBe('0');
    expect(s.openTime).toBe(T0 - 24 * 60 * MIN);
    expect(s.closeTime).toBe(T0);
  });

  it('computes open, high, low, last and volumes exactly', () => {
    const r = new Rolling24h();
    r.record(T0, m('100.1'), m('0.5'));
    r.record(T0 + 10, m('102.3'), m('0.25'));
    r.record(T0 + 5 * MIN, m('99.9'), m('1'));
    r.record(T0 + 6 * MIN, m('101'), m('0.1'));
    const s = r.stats(T0 + 7 * MIN);
    expect(s.open.toString()).toBe('100.1');
    expect(s.high.toString()).toBe('102.3');
    expect(s.low.toString()).toBe('99.9');
    expect(s.last.toString()).toBe('101');
    expect(s.lastQty.toString()).toBe('0.1');
    expect(s.volume.toString()).toBe('1.85');
    // 50.05 + 25.575 + 99.9 + 10.1
    expect(s.quoteVolume.toString()).toBe('185.625');
    expect(s.count).toBe(4);
    expect(s.firstTime).toBe(T0);
    expect(s.lastTime).toBe(T0 + 6 * MIN);
  });

  it('drops trades older than 24 h and reuses their slots', () => {
    const r = new Rolling24h();
    r.record(T0, m('100'), m('1'));
    r.record(T0 + 24 * 60 * MIN, m('200'), m('2'));
    const s = r.stats(T0 + 24 * 60 * MIN + 1);
    expect(s.count).toBe(1);
    expect(s.open.toString()).toBe('200');
    expect(s.volume.toString()).toBe('2');
  });
});

describe('Rolling24h restore', () => {
  const trades: [number, string, string][] = [
    [T0 + 5, '100', '1'],
    [T0 + 30_000, '104', '0.5'],
    [T0 + 3 * MIN + 1, '98', '2'],
    [T0 + 3 * MIN + 59_999, '99.5', '0.25'],
    [T0 + 20 * 60 * MIN, '101', '1'],
  ];
  const recorded = () => {
    const r = new Rolling24h();
    for (const [t, p, q] of trades) r.record(t, m(p), m(q));
    return r;
  };

  it('exports its minutes oldest first with the first and last trade of each', () => {
    const minutes = recorded().minutes();
    expect(minutes.map((b) => b.openTime)).toEqual([T0, T0 + 3 * MIN, T0 + 20 * 60 * MIN]);
    expect(minutes[1]).toMatchObject({
      firstTime: T0 + 3 * MIN + 1,
      lastTime: T0 + 3 * MIN + 59_999,
      count: 2,
    });
    expect(minutes[1].lastQty.toString()).toBe('0.25');
  });

  it('rebuilds the same statistics from its minutes', () => {
    const r = recorded();
    const restored = Rolling24h.fromMinutes(r.minutes());
    for (const now of [T0 + 4 * MIN, T0 + 24 * 60 * MIN - 1, T0 + 24 * 60 * MIN + 4 * MIN]) {
      expect(restored.stats(now)).toEqual(r.stats(now));
    }
    // And keeps recording from there.
    r.record(T0 + 21 * 60 * MIN, m('200'), m('1'));
    restored.record(T0 + 21 * 60 * MIN, m('200'), m('1'));
    expect(restored.stats(T0 + 22 * 60 * MIN)).toEqual(r.stats(T0 + 22 * 60 * MIN));
  });

  it('restores from one-minute candles plus the per-minute trade times and last quantity', () => {
    const candle = {
      openTime: T0 + MIN,
      closeTime: T0 + 2 * MIN - 1,
      open: m('10'),
      high: m('12'),
      low: m('9'),
      close: m('11'),
      volume: m('3'),
      quoteVolume: m('31'),
      count: 3,
      takerBuyVolume: m('1'),
      takerBuyQuoteVolume: m('10'),
    };
    const r = Rolling24h.fromMinutes([
      { ...candle, firstTime: T0 + MIN + 7, lastTime: T0 + MIN + 900, lastQty: m('2') },
    ]);
    expect(r.stats(T0 + 5 * MIN)).toMatchObject({
      count: 3,
      firstTime: T0 + MIN + 7,
      lastTime: T0 + MIN + 900,
    });
    expect(r.stats(T0 + 5 * MIN).lastQty.toString()).toBe('2');
  });

  it('keeps the later of two minutes sharing a slot, and filters by window with now', () => {
    const day = 24 * 60 * MIN;
    const mk = (openTime: number, price: string) => ({
      openTime,
      open: m(price),
      high: m(price),
      low: m(price),
      close: m(price),
      volume: m('1'),
      quoteVolume: m(price),
      count: 1,
      firstTime: openTime,
      lastTime: openTime,
      lastQty: m('1'),
    });
    const r = Rolling24h.fromMinutes([mk(T0 + day, '2'), mk(T0, '1')]);
    expect(r.minutes().map((b) => b.open.toString())).toEqual(['2']);
    const both = Rolling24h.fromMinutes([mk(T0, '1'), mk(T0 + MIN, '2')]);
    expect(both.minutes(T0 + day).map((b) => b.openTime)).toEqual([T0 + MIN]);
    expect(both.minuteAt(T0 + MIN + 5)?.close.toString()).toBe('2');
    expect(both.minuteAt(T0 + 2 * MIN)).toBeUndefined();
  });

  it('exports copies: recording later does not change an exported minute', () => {
    const r = new Rolling24h();
    r.record(T0, m('100'), m('1'));
    const before = r.minuteAt(T0)!;
    r.record(T0 + 1, m('150'), m('1'));
    expect(before.high.toString()).toBe('100');
    expect(r.minuteAt(T0)?.high.toString()).toBe('150');
  });
});
