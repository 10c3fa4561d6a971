import fc from 'fast-check';
import { Money } from '../money/money';
import {
  averagePrice,
  averagePriceOfFill,
  ceilTo,
  divide,
  floorTo,
  proRata,
  type RoundingMode,
} from './rounding';

const m = (v: string) => new Money(v);

/** a / b at `dp` places by the integer method (quotient and remainder at the scale), for reference. */
function exact(a: Money, b: Money, dp: number, mode: RoundingMode | 'half-up'): Money {
  const n = a.shiftedBy(dp);
  const q = n.idiv(b);
  const r = n.minus(q.times(b));
  const twice = r.times(2);
  const up =
    !r.isZero() &&
    (mode === 'up' ||
      (mode === 'half-up' && twice.gte(b)) ||
      (mode === 'half-even' && (twice.gt(b) || (twice.eq(b) && !q.mod(2).isZero()))));
  return (up ? q.plus(1) : q).shiftedBy(-dp);
}

/** Non-negative decimals up to `max` with exactly `places` decimals. */
const decimal = (max: number, places: number) =>
  fc
    .tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max: 10 ** places - 1 }))
    .map(([i, f]) => new Money(`${i}.${String(f).padStart(places, '0')}`));

describe('divide', () => {
  it('rounds a non-terminating quotient down, up or half-even at the scale', () => {
    expect(divide(m('100'), 3, 8, 'down').toFixed()).toBe('33.33333333');
    expect(divide(m('100'), 3, 8, 'up').toFixed()).toBe('33.33333334');
    expect(divide(m('200'), 3, 8, 'half-even').toFixed()).toBe('66.66666667');
  });

  it('is exact beyond Money 18 places: a remainder past them still rounds up', () => {
    // 1 + 1e-20 over 1: the 18-place division would drop the tail, the exact remainder does not.
    expect(divide(m('1.00000000000000000001'), 1, 8, 'up').toFixed()).toBe('1.00000001');
  });

  it('breaks exact halves towards the even neighbour', () => {
    expect(divide(m('0.000000025'), 1, 8, 'half-even').toFixed()).toBe('0.00000002');
    expect(divide(m('0.000000035'), 1, 8, 'half-even').toFixed()).toBe('0.00000004');
  });

  it('leaves terminating quotients unchanged in every mode', () => {
    for (const mode of ['down', 'up', 'half-even'] as const)
      expect(divide(m('10.05'), 3, 8, mode).toFixed()).toBe('3.35');
  });

  it('equals the exact integer method (quotient and remainder at the scale) in every mode', () => {
    fc.assert(
      fc.property(
        decimal(1e9, 18),
        fc.oneof(
          decimal(1e6, 8).filter((b) => b.gt(0)),
          fc.integer({ min: 1, max: 125 }).map((n) => new Money(n)),
        ),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom<RoundingMode>('down', 'up', 'half-even'),
        (a, b, dp, mode) => {
          const got = divide(a, b, dp, mode);
          expect(got.toFixed()).toBe(exact(a, b, dp, mode).toFixed());
          // Later arithmetic on the result is Money's, not the divider's `dp` places.
          expect(got).toBeInstanceOf(Money);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses negative dividends and non-positive divisors', () => {
    expect(() => divide(m('-1'), 2, 8, 'down')).toThrow();
    expect(() => divide(m('1'), 0, 8, 'down')).toThrow();
  });
});

describe('averagePrice', () => {
  it('equals the exact half-up division to 8 places (Money divides to 18 first)', () => {
    fc.assert(
      fc.property(
        decimal(1e12, 12),
        decimal(1e6, 8).filter((q) => q.gt(0)),
        (quote, qty) => {
          expect(averagePrice(quote, qty).toFixed()).toBe(exact(quote, qty, 8, 'half-up').toFixed());
        },
      ),
      { numRuns: 2000 },
    );
    expect(averagePrice(m('14999.98'), m('0.3')).toFixed()).toBe('49999.93333333');
    expect(averagePrice(m('0.00000001'), m('2')).toFixed()).toBe('0.00000001'); // 0.000000005 up
  });

  it('of one fill is its price at 8 places, as dividing its quote by its quantity gives', () => {
    fc.assert(
      fc.property(
        decimal(1e7, 10),
        decimal(1e6, 8).filter((q) => q.gt(0)),
        (price, qty) => {
          expect(averagePriceOfFill(price).toFixed()).toBe(averagePrice(price.times(qty), qty).toFixed());
        },
      ),
      { numRuns: 2000 },
    );
    expect(averagePriceOfFill(m('65000.0')).toFixed()).toBe('65000');
    expect(averagePriceOfFill(m('0.000000015')).toFixed()).toBe('0.00000002');
  });
});

describe('proRata, ceilTo, floorTo', () => {
  it('takes a share of an amount', () => {
    expect(proRata(m('30.2'), m('1'), m('3'), 8, 'down').toFixed()).toBe('10.06666666');
  });

  it('rounds to 8 decimals towards +/- infinity', () => {
    expect(ceilTo(m('0.000246913578')).toFixed()).toBe('0.00024692');
    expect(floorTo(m('-0.000246913578')).toFixed()).toBe('-0.00024692');
    expect(floorTo(m('0.000246913578')).toFixed()).toBe('0.00024691');
  });
});
