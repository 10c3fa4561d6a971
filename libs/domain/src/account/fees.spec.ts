import { Money } from '../money/money';
import { FEE_TIERS } from './__fixtures__/markets';
import { commission, feeRates, isValidVipTier } from './fees';

const m = (v: string) => new Money(v);

describe('fee tiers', () => {
  it('reads maker and taker rates of a tier', () => {
    expect(feeRates(FEE_TIERS, 0).maker.toFixed()).toBe('0.0002');
    expect(feeRates(FEE_TIERS, 0).taker.toFixed()).toBe('0.0005');
    expect(feeRates(FEE_TIERS, 9).maker.toFixed()).toBe('0');
    expect(feeRates(FEE_TIERS, 9).taker.toFixed()).toBe('0.00017');
  });

  it('knows which tiers exist', () => {
    expect(isValidVipTier(FEE_TIERS, 0)).toBe(true);
    expect(isValidVipTier(FEE_TIERS, 9)).toBe(true);
    expect(isValidVipTier(FEE_TIERS, 10)).toBe(false);
    expect(isValidVipTier(FEE_TIERS, 1.5)).toBe(false);
    expect(() => feeRates(FEE_TIERS, 10)).toThrow('tier');
  });

  it('reads a negative (rebate) rate as zero: commission is never income', () => {
    const r = feeRates([{ tier: 0, makerRate: '-0.0001', takerRate: '0.0004' }], 0);
    expect(r.maker.toFixed()).toBe('0');
  });
});

describe('commission', () => {
  it('is notional x rate, exact when it fits in 8 decimals', () => {
    expect(commission(m('12345.6789'), m('0.0005')).toFixed()).toBe('6.17283945');
  });
  it('rounds up to 8 decimals in favour of the fee account', () => {
    expect(commission(m('1.23456789'), m('0.0002')).toFixed()).toBe('0.00024692'); // 0.000246913578
    expect(commission(m('0.001'), m('0.0000001')).toFixed()).toBe('0.00000001');
  });
  it('is zero at a zero rate', () => {
    expect(commission(m('1000'), m('0')).isZero()).toBe(true);
  });
});
