import fc from 'fast-check';
import { Money } from '../money/money';
import { premiumIndexOf } from './premium-index';

const m = (v: string) => new Money(v);
const p = (index: string | undefined, bid: string | undefined, ask: string | undefined) =>
  premiumIndexOf(index ? m(index) : undefined, bid ? m(bid) : undefined, ask ? m(ask) : undefined)?.toFixed();

describe('premiumIndexOf', () => {
  it('is 0 while the index lies between the impact bid and ask', () => {
    expect(p('100', '99.9', '100.1')).toBe('0');
    expect(p('100', '100', '100')).toBe('0');
  });

  it('is the impact bid premium when the book trades above the index', () => {
    expect(p('100', '100.05', '100.15')).toBe('0.0005'); // (0.05 − 0) / 100
  });

  it('is the impact ask discount when the book trades below the index', () => {
    expect(p('100', '99.8', '99.9')).toBe('-0.001'); // (0 − 0.1) / 100
  });

  it('takes the available side when an impact price is missing, and 0 with neither', () => {
    expect(p('100', '100.2', undefined)).toBe('0.002');
    expect(p('100', '99', undefined)).toBe('0');
    expect(p('100', undefined, '99.5')).toBe('-0.005');
    expect(p('100', undefined, '101')).toBe('0');
    expect(p('100', undefined, undefined)).toBe('0');
  });

  it('is undefined without a positive index', () => {
    expect(p(undefined, '100', '101')).toBeUndefined();
    expect(p('0', '100', '101')).toBeUndefined();
    expect(p('-1', '100', '101')).toBeUndefined();
  });

  it('rounds toward zero at 18 places', () => {
    expect(p('3', '4', '5')).toBe('0.333333333333333333');
    expect(p('3', '1', '2')).toBe('-0.333333333333333333');
  });

  it('has the sign of the side the book leans to (impact bid ≤ impact ask)', () => {
    const price = fc.integer({ min: 1, max: 10_000_000 }).map((c) => m(String(c)).shiftedBy(-2));
    fc.assert(
      fc.property(price, price, price, (index, a, b) => {
        const [bid, ask] = a.lte(b) ? [a, b] : [b, a];
        const prem = premiumIndexOf(index, bid, ask);
        if (!prem) return false;
        if (bid.gt(index)) return prem.gt(0);
        if (ask.lt(index)) return prem.lt(0);
        return prem.isZero();
      }),
    );
  });
});
