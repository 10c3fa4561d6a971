import { decimalsOf, Money, parseDecimal } from './money';

describe('Money', () => {
  it('adds without float error', () => {
    expect(new Money('0.1').plus('0.2').toString()).toBe('0.3');
  });

  it('keeps 18 decimals on division, rounding down', () => {
    expect(new Money(2).div(3).toString()).toBe('0.666666666666666666');
  });

  it('never prints exponents for realistic magnitudes', () => {
    expect(new Money('0.00000000000000001').toString()).toBe('0.00000000000000001');
    expect(new Money('123456789012345678901234567890').toString()).toBe('123456789012345678901234567890');
  });
});

describe('parseDecimal', () => {
  it.each(['1', '1.5', '0.001', '.5', '-2', '+3.0', ' 4 '])('accepts %p', (v) => {
    expect(parseDecimal(v)).toBeDefined();
  });
  it.each(['', 'abc', '1e5', '0x10', 'NaN', 'Infinity', '1.2.3', '١٢', null, undefined, {}, []])(
    'rejects %p',
    (v) => {
      expect(parseDecimal(v)).toBeUndefined();
    },
  );
  it('accepts finite JSON numbers', () => {
    expect(parseDecimal(2.5)?.toString()).toBe('2.5');
    expect(parseDecimal(Number.NaN)).toBeUndefined();
  });
});

describe('decimalsOf', () => {
  it.each([
    ['0.001', 3],
    ['0.1', 1],
    ['1', 0],
    ['0.00010', 4],
  ])('%s has %d decimals', (step, n) => {
    expect(decimalsOf(step)).toBe(n);
  });
});
