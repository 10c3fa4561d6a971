import {
  decimal,
  decimalsOf,
  isAboveZero,
  MAX_DECIMAL_TEXT,
  isBelowZero,
  Money,
  parseDecimal,
} from './money';

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
  it('answers a text again the same way, a refused one too', () => {
    for (let round = 0; round < 2; round++) {
      expect(parseDecimal('12.50')?.toFixed()).toBe('12.5');
      expect(parseDecimal('1e5')).toBeUndefined();
    }
  });
  it('accepts finite JSON numbers', () => {
    expect(parseDecimal(2.5)?.toString()).toBe('2.5');
    expect(parseDecimal(Number.NaN)).toBeUndefined();
  });
  it('reads texts up to MAX_DECIMAL_TEXT characters, and refuses longer ones at once', () => {
    expect(parseDecimal(`0.${'1'.repeat(MAX_DECIMAL_TEXT - 2)}`)?.decimalPlaces()).toBe(MAX_DECIMAL_TEXT - 2);
    expect(parseDecimal('1'.repeat(MAX_DECIMAL_TEXT + 1))).toBeUndefined();
    // A client's megabyte of digits: refused by its length, not read (a BigInt that long takes 0.25 s).
    expect(parseDecimal('7'.repeat(1_000_000))).toBeUndefined();
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

describe('decimal', () => {
  it('is the Money of the text, one shared value per distinct text', () => {
    expect(decimal('65000.0').eq(new Money('65000.0'))).toBe(true);
    expect(decimal('-0.001').toFixed()).toBe('-0.001');
    expect(decimal('0.001')).toBe(decimal('0.001'));
  });
  it('parses a text longer than any price the same way, without keeping it', () => {
    const long = `${'9'.repeat(60)}.${'1'.repeat(30)}`;
    expect(decimal(long).toFixed()).toBe(long);
    expect(parseDecimal(long)?.toFixed()).toBe(long);
  });
  it('still parses once far more distinct texts than it keeps have gone by', () => {
    const first = decimal('7.25');
    for (let i = 0; i < 10_000; i++) expect(decimal(`${i}.5`).toFixed()).toBe(`${i}.5`);
    expect(decimal('7.25').eq(first)).toBe(true);
  });
});

describe('isAboveZero and isBelowZero', () => {
  it.each(['1', '0.000000000000000001', '-1', '-0.5', '0', '-0', 'Infinity', '-Infinity', 'NaN'])(
    'agree with gt(0) and lt(0) for %s',
    (v) => {
      const x = new Money(v);
      expect(isAboveZero(x)).toBe(x.gt(0));
      expect(isBelowZero(x)).toBe(x.lt(0));
    },
  );
});
