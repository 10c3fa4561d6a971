import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import { Decimal, type RoundingModeNumber } from './decimal';

/** The reference: bignumber.js as money was configured on it. */
const Ref = BigNumber.clone({
  DECIMAL_PLACES: 18,
  ROUNDING_MODE: BigNumber.ROUND_DOWN,
  EXPONENTIAL_AT: [-40, 60],
});

const digits = (max: number) =>
  fc
    .array(fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9'), { maxLength: max })
    .map((d) => d.join(''));

/** Decimal texts: signs, zeros, long fractions, exponents near the notation's switch, specials. */
const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom('', '-'), digits(22), digits(24)) }.arbitrary.map(
    ([s, i, f]) => `${s}${i || '0'}${f ? `.${f}` : ''}`,
  ),
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('', '-'), digits(6), digits(6), fc.integer({ min: -70, max: 75 }))
      .map(([s, i, f, e]) => `${s}${i || '1'}${f ? `.${f}` : ''}e${e}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('0', '-0', '1', '-1', '0.5', '-0.5', '2.5', '0.000', '10', '100.00'),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('NaN', 'Infinity', '-Infinity', ' 12.5 ', '+3', '-.5', '7.', 'abc'),
  },
);
const num: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: false }),
  fc.constantFrom(0, -0, 0.1, 1e21, 1e-7, Number.NaN, Infinity, -Infinity),
);
const value = fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: num });
const rounding = fc.integer({ min: 0, max: 8 }) as fc.Arbitrary<RoundingModeNumber>;
const places = fc.integer({ min: 0, max: 30 });

/** Same value, sign of zero and notation: bignumber.js's valueOf and ours. */
const same = (ours: Decimal, ref: BigNumber) => expect(ours.valueOf()).toBe(ref.valueOf());

const RUNS = { numRuns: 3000 };

describe('Decimal against bignumber.js', () => {
  it('reads texts and numbers alike', () => {
    fc.assert(
      fc.property(value, (v) => {
        same(new Decimal(v), new Ref(v));
      }),
      RUNS,
    );
  });

  it('adds, subtracts, multiplies and divides alike', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const x = new Decimal(a);
        const y = new Decimal(b);
        const rx = new Ref(a);
        const ry = new Ref(b);
        same(x.plus(y), rx.plus(ry));
        same(x.minus(y), rx.minus(ry));
        same(x.times(y), rx.times(ry));
        same(x.div(y), rx.div(ry));
        same(x.idiv(y), rx.idiv(ry));
        same(x.mod(y), rx.mod(ry));
        // Arguments as given (text, number), not only as values.
        same(x.plus(b), rx.plus(b));
        same(x.times(b), rx.times(b));
      }),
      RUNS,
    );
  });

  it('compares alike', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const x = new Decimal(a);
        const rx = new Ref(a);
        expect(x.comparedTo(b)).toBe(rx.comparedTo(b));
        expect([x.eq(b), x.gt(b), x.gte(b), x.lt(b), x.lte(b)]).toEqual([
          rx.eq(b),
          rx.gt(b),
          rx.gte(b),
          rx.lt(b),
          rx.lte(b),
        ]);
        same(Decimal.max(a, b), Ref.max(a, b));
        same(Decimal.min(a, b), Ref.min(a, b));
        same(Decimal.max(a, b, 0), Ref.max(a, b, 0));
      }),
      RUNS,
    );
  });

  it('answers predicates and unary operations alike', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: -30, max: 30 }), (a, k) => {
        const x = new Decimal(a);
        const rx = new Ref(a);
        expect([x.isZero(), x.isPositive(), x.isNegative(), x.isFinite()]).toEqual([
          rx.isZero(),
          rx.isPositive(),
          rx.isNegative(),
          rx.isFinite(),
        ]);
        same(x.abs(), rx.abs());
        same(x.negated(), rx.negated());
        same(x.shiftedBy(k), rx.shiftedBy(k));
        expect(x.decimalPlaces()).toBe(rx.decimalPlaces());
        expect(x.toNumber()).toBe(rx.toNumber());
      }),
      RUNS,
    );
  });

  it('rounds and writes alike', () => {
    fc.assert(
      fc.property(value, places, rounding, (a, dp, rm) => {
        const x = new Decimal(a);
        const rx = new Ref(a);
        same(x.decimalPlaces(dp, rm), rx.decimalPlaces(dp, rm));
        same(x.decimalPlaces(dp), rx.decimalPlaces(dp));
        same(x.integerValue(rm), rx.integerValue(rm));
        same(x.integerValue(), rx.integerValue());
        expect(x.toFixed()).toBe(rx.toFixed());
        expect(x.toFixed(dp)).toBe(rx.toFixed(dp));
        expect(x.toFixed(dp, rm)).toBe(rx.toFixed(dp, rm));
        expect(x.toString()).toBe(rx.toString());
        expect(JSON.stringify({ x })).toBe(JSON.stringify({ x: rx }));
        expect(`${x}`).toBe(`${rx}`);
      }),
      RUNS,
    );
  });

  it('divides to any places and rounding as a configured bignumber.js does', () => {
    fc.assert(
      fc.property(value, value, places, rounding, (a, b, dp, rm) => {
        const RefAt = Ref.clone({ DECIMAL_PLACES: dp, ROUNDING_MODE: rm, EXPONENTIAL_AT: [-40, 60] });
        same(new Decimal(a).dividedToPlaces(b, dp, rm), new RefAt(a).div(b));
      }),
      RUNS,
    );
  });

  it('writes each value one way, so equal values are equal objects', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const x = new Decimal(a);
        const y = new Decimal(b);
        const shifts = [x.shiftedBy(-3), x.shiftedBy(2), x.mod(y), x.idiv(y), x.integerValue(2)];
        for (const r of [x.plus(y), x.minus(y), x.times(y), x.div(y), x.decimalPlaces(2, 4), ...shifts])
          if (r.isFinite()) expect(r).toEqual(new Decimal(r.valueOf()));
      }),
      RUNS,
    );
    expect(new Decimal('0.5').plus('0.5')).toEqual(new Decimal(1));
    expect(new Decimal('1').div(4)).toEqual(new Decimal('0.25'));
    expect(new Decimal(100).shiftedBy(-2)).toEqual(new Decimal(1));
  });

  it('keeps exact products of long fractions', () => {
    const x = new Decimal('0.000000000000000001');
    expect(x.times(x).times(x).toFixed()).toBe(new Ref('0.000000000000000001').pow(3).toFixed());
    expect(new Decimal('1.10').times('2.00').toFixed()).toBe('2.2');
  });

  it('reads exponents up to 10,000 exactly, and beyond as bignumber.js does beyond 1e9', () => {
    for (const t of ['1e500', '-2.5e-600', '7e10000', '3e-9999'])
      expect(new Decimal(t).times('1.5').valueOf()).toBe(new Ref(t).times('1.5').valueOf());
    // A few characters must not ask for billions of digits.
    expect(new Decimal('1e999999999').toString()).toBe('Infinity');
    expect(new Decimal('-1e10001').toString()).toBe('-Infinity');
    expect(new Decimal('-1e-999999999').valueOf()).toBe('-0');
    expect(new Decimal('0e999999999').valueOf()).toBe('0');
  });

  it('refuses rounding modes and places out of range', () => {
    expect(() => new Decimal(1).decimalPlaces(2, 9 as RoundingModeNumber)).toThrow(/rounding mode/);
    expect(() => new Decimal(1).toFixed(-1)).toThrow(/decimal places/);
    expect(() => new Decimal(1).shiftedBy(0.5)).toThrow(/shift/);
  });
});
