import { Money } from '../money/money';
import { applyOpenInterest, openInterestRow } from './open-interest-history';

const m = (v: string) => new Money(v);
const T = Date.UTC(2026, 0, 1, 12, 0);
const MIN = 60_000;

describe('applyOpenInterest', () => {
  it('keeps the last sample of the period, valued at that sample’s mark', () => {
    let p = applyOpenInterest(undefined, '5m', T + MIN, m('10'), m('100'));
    p = applyOpenInterest(p, '5m', T + 4 * MIN, m('12.5'), m('101.1'));
    expect(openInterestRow(p)).toEqual({
      sumOpenInterest: '12.50000000',
      sumOpenInterestValue: '1263.75000000',
      timestamp: String(T),
    });
  });

  it('lets a sample at the same time replace the point, ignores an older one', () => {
    const p = applyOpenInterest(undefined, '5m', T + MIN, m('10'), m('100'));
    expect(applyOpenInterest(p, '5m', T + MIN - 1, m('99'), m('100'))).toBe(p);
    expect(applyOpenInterest(p, '5m', T + MIN, m('11'), m('100')).sumOpenInterest.toFixed()).toBe('11');
  });

  it('opens a new point at the next period and at the exact boundary', () => {
    const p = applyOpenInterest(undefined, '1h', T + 59 * MIN, m('10'), m('100'));
    const next = applyOpenInterest(p, '1h', T + 60 * MIN, m('0'), m('100'));
    expect([p.timestamp, next.timestamp]).toEqual([T, T + 60 * MIN]);
    expect(openInterestRow(next, 2)).toMatchObject({ sumOpenInterest: '0.00', sumOpenInterestValue: '0.00' });
  });
});
