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
