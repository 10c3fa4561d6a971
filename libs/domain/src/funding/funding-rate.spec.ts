import fc from 'fast-check';
import { Money } from '../money/money';
import { clampFundingRate, fundingRateOf, interestPerInterval, marketFundingRate } from './funding-rate';

const m = (v: string) => new Money(v);
const I = m('0.0001'); // Binance's 0.01 % per 8 h
const rate = (p: string | undefined, cap = '0.02', i = I) =>
  fundingRateOf(p === undefined ? undefined : m(p), i, cap).toFixed();

describe('interestPerInterval', () => {
  const market = { interestRate: '0.0000125', fundingIntervalHours: 8 };
  it('turns the hourly rate into the rate of the interval', () => {
    expect(interestPerInterval(market).toFixed()).toBe('0.0001'); // 0.03 % a day / 3
    expect(interestPerInterval({ ...market, fundingIntervalHours: 4 }).toFixed()).toBe('0.00005');
    expect(interestPerInterval({ ...market, fundingIntervalHours: 1 }).toFixed()).toBe('0.0000125');
    expect(interestPerInterval({ ...market, fundingIntervalMinutes: 30 }).toFixed()).toBe('0.00000625');
    expect(interestPerInterval({ ...market, fundingIntervalMinutes: 1 }).toFixed()).toBe(
      '0.000000208333333333',
    );
    expect(interestPerInterval({ ...market, interestRate: '0' }).toFixed()).toBe('0');
  });
});

describe('fundingRateOf', () => {
  it('is the interest rate while the premium is within ±0.05 % of it (Binance)', () => {
    expect(rate('0')).toBe('0.0001');
    expect(rate('0.00035')).toBe('0.0001'); // I − P = −0.025 %
    expect(rate('-0.0004')).toBe('0.0001'); // I − P = +0.05 % exactly
    expect(rate('0.0006')).toBe('0.0001'); // I − P = −0.05 % exactly
  });

  it('follows the premium beyond the dampener', () => {
    expect(rate('0.0008')).toBe('0.0003'); // 0.08 % + clamp(−0.07 %) = 0.03 %
    expect(rate('-0.0006')).toBe('-0.0001'); // −0.06 % + clamp(+0.07 %) = −0.01 %
    expect(rate('0.0015')).toBe('0.001');
  });

  it('takes P = 0 when no premium was sampled', () => {
    expect(rate(undefined)).toBe('0.0001');
    expect(rate(undefined, '0.02', m('0'))).toBe('0');
  });

  it('is held to the cap and the floor', () => {
    expect(rate('0.05')).toBe('0.02'); // 4.95 % capped
    expect(rate('-0.05')).toBe('-0.02'); // −5.05 % floored
    expect(rate('0.0085', '0.0075')).toBe('0.0075');
    expect(rate('-0.0085', '0.0075')).toBe('-0.0075');
    expect(rate('0.00805', '0.0075')).toBe('0.0075');
    expect(rate('0.0079', '0.0075')).toBe('0.0074');
  });

  it('rounds half-even to 8 decimals after the dampener', () => {
    expect(rate('0.001000005')).toBe('0.0005'); // 0.000500005 → 0.0005
    expect(rate('0.001000015')).toBe('0.00050002');
    expect(rate('-0.001000015')).toBe('-0.00050002'); // −0.000500015, 1 odd → 2
    expect(rate('0.000700000333')).toBe('0.0002');
  });

  it('rejects a cap that is not positive', () => {
    expect(() => rate('0', '0')).toThrow(RangeError);
    expect(() => clampFundingRate(m('0.1'), '-0.01')).toThrow(RangeError);
  });

  it('uses the market interest and cap', () => {
    const market = { interestRate: '0.0000125', fundingIntervalHours: 8, fundingRateCap: '0.003' };
    expect(marketFundingRate(market, m('0.0002')).toFixed()).toBe('0.0001');
    expect(marketFundingRate(market, m('0.01')).toFixed()).toBe('0.003');
    expect(marketFundingRate({ ...market, fundingIntervalHours: 4 }, undefined).toFixed()).toBe('0.00005');
  });

  it('always lies within [−cap, +cap], with at most 8 decimals beyond the cap', () => {
    const decimal = (min: number, max: number, shift: number) =>
      fc.integer({ min, max }).map((n) => m(String(n)).shiftedBy(-shift));
    fc.assert(
      fc.property(decimal(-1e9, 1e9, 10), decimal(-1e5, 1e5, 9), decimal(1, 1e6, 8), (p, i, cap) => {
        const f = fundingRateOf(p, i, cap);
        return f.abs().lte(cap) && (f.abs().eq(cap) || (f.decimalPlaces() ?? 0) <= 8);
      }),
    );
  });

  it('equals the interest rate (rounded) whenever |I − P| ≤ 0.05 % and |I| ≤ cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -50_000, max: 50_000 }),
        fc.integer({ min: -10_000, max: 10_000 }),
        (d, i) => {
          const interest = m(String(i)).shiftedBy(-8);
          const p = interest.minus(m(String(d)).shiftedBy(-8));
          return fundingRateOf(p, interest, '0.02').eq(interest);
        },
      ),
    );
  });
});
