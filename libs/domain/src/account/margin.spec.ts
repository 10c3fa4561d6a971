import { Money } from '../money/money';
import { BTC, SOL } from './__fixtures__/markets';
import {
  maintenanceBracketFor,
  effectiveLeverage,
  initialMargin,
  isValidLeverage,
  maintenanceMargin,
  marginRatio,
  maxNotionalForLeverage,
  orderMargin,
} from './margin';

const m = (v: string) => new Money(v);

describe('maintenance margin by notional brackets (BTCUSDT brackets)', () => {
  it('derives cum 0, 50, 950, 11450 from the caps and ratios', () => {
    expect(BTC.maintenanceBrackets.map((b) => b.cum)).toEqual(['0', '50', '950', '11450']);
  });

  it.each([
    // notional, hand-computed notional x ratio - cum
    ['0', '0'],
    ['40000', '160'], // 40000 x 0.004
    ['50000', '200'], // cap is inclusive: still 0.004
    ['100000', '450'], // 100000 x 0.005 - 50
    ['600000', '2950'], // 600000 x 0.005 - 50
    ['600000.1', '2950.00065'], // 600000.1 x 0.0065 - 950: continuous at the cap
    ['1000000', '5550'], // 1000000 x 0.0065 - 950
    ['20000000', '188550'], // beyond the last cap: last bracket, 20000000 x 0.01 - 11450
  ])('notional %s -> %s', (notional, mm) => {
    expect(maintenanceMargin(BTC, m(notional)).toFixed()).toBe(mm);
  });

  it('uses the absolute notional (shorts)', () => {
    expect(maintenanceMargin(BTC, m('-100000')).toFixed()).toBe('450');
    expect(maintenanceBracketFor(BTC, m('-100000')).maintMarginRatio).toBe('0.005');
  });
});

describe('marginRatio', () => {
  it('is maintenance over margin balance', () => {
    expect(marginRatio(m('450'), m('9000')).toFixed()).toBe('0.05');
  });
  it('is 0 with nothing to maintain and Infinity with no margin balance left', () => {
    expect(marginRatio(m('0'), m('-5')).toFixed()).toBe('0');
    expect(marginRatio(m('1'), m('0')).isFinite()).toBe(false);
    expect(marginRatio(m('1'), m('-3')).gt(1)).toBe(true);
  });
});

describe('initial and order margin', () => {
  it('initial margin is notional / leverage rounded up to 8 decimals', () => {
    expect(initialMargin(m('3000'), 20).toFixed()).toBe('150');
    expect(initialMargin(m('100'), 3).toFixed()).toBe('33.33333334');
    expect(initialMargin(m('-100'), 3).toFixed()).toBe('33.33333334');
  });

  it('order margin is notional / leverage x 1.005 rounded up to 8 decimals', () => {
    expect(orderMargin(m('1000'), 20).toFixed()).toBe('50.25');
    expect(orderMargin(m('1'), 7).toFixed()).toBe('0.14357143'); // 1.005 / 7 = 0.1435714285...
  });
});

describe('leverage', () => {
  it.each([
    [1, true],
    [20, true],
    [125, true],
    [0, false],
    [126, false],
    [-1, false],
    [1.5, false],
    [Number.NaN, false],
  ])('isValidLeverage(BTC, %p) = %p', (lev, ok) => {
    expect(isValidLeverage(BTC, lev)).toBe(ok);
  });

  it('clamps the standing leverage to the market maximum at placement', () => {
    expect(effectiveLeverage(BTC, 100)).toBe(100);
    expect(effectiveLeverage({ ...BTC, maxLeverage: 50 }, 100)).toBe(50);
    expect(effectiveLeverage(SOL, 75)).toBe(50);
  });

  it('maxNotionalValue is the largest cap whose bracket allows the leverage', () => {
    expect(maxNotionalForLeverage(BTC, 125).toFixed()).toBe('50000');
    expect(maxNotionalForLeverage(BTC, 101).toFixed()).toBe('50000');
    expect(maxNotionalForLeverage(BTC, 100).toFixed()).toBe('600000');
    expect(maxNotionalForLeverage(BTC, 1).toFixed()).toBe('12000000');
    expect(maxNotionalForLeverage({ ...BTC, maxLeverage: 150 }, 150).toFixed()).toBe('0');
  });
});
