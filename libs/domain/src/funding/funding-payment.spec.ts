import fc from 'fast-check';
import { Money } from '../money/money';
import { fundingPayment, fundingRound } from './funding-payment';

const m = (v: string | number) => new Money(v);
const pay = (size: string, mark: string, rate: string) => fundingPayment(m(size), m(mark), m(rate)).toFixed();

describe('fundingPayment', () => {
  it('has longs pay shorts when the rate is positive (Binance: value × rate)', () => {
    // 20,000 USDT of position at 0.01 %: 2 USDT
    expect(pay('2', '10000', '0.0001')).toBe('-2');
    expect(pay('-2', '10000', '0.0001')).toBe('2');
  });

  it('has shorts pay longs when the rate is negative', () => {
    expect(pay('0.5', '30000', '-0.0003')).toBe('4.5');
    expect(pay('-0.5', '30000', '-0.0003')).toBe('-4.5');
  });

  it('is 0 for a flat position or a zero rate', () => {
    expect(pay('0', '30000', '0.0003')).toBe('0');
    expect(pay('1', '30000', '0')).toBe('0');
  });

  it('rounds toward −∞ at 8 decimals: the payer pays the dust, the receiver forgoes it', () => {
    // 0.001 × 12,345.67 × 0.00012345 = 0.0015240729615
    expect(pay('0.001', '12345.67', '0.00012345')).toBe('-0.00152408');
    expect(pay('-0.001', '12345.67', '0.00012345')).toBe('0.00152407');
    expect(pay('0.001', '12345.67', '-0.00012345')).toBe('0.00152407');
    expect(pay('0.000001', '1', '0.0001')).toBe('-0.00000001'); // 10⁻¹⁰ owed, 10⁻⁸ paid
    expect(pay('-0.000001', '1', '0.0001')).toBe('0'); // 10⁻¹⁰ earned, nothing received
  });
});

describe('fundingRound', () => {
  it('pays each position and hands the dust to the insurance fund', () => {
    const positions = [
      { user: 'a', size: m('0.001') },
      { user: 'b', size: m('-0.0004') },
      { user: 'c', size: m('-0.0006') },
    ];
    const round = fundingRound(positions, m('12345.67'), m('0.00012345'));
    expect(round.payments.map((p) => [p.position.user, p.payment.toFixed()])).toEqual([
      ['a', '-0.00152408'],
      ['b', '0.00060962'], // 0.0006096291846
      ['c', '0.00091444'], // 0.0009144437769
    ]);
    expect(round.dust.toFixed()).toBe('0.00000002');
  });

  it('has no dust when every payment is exact, and none for no positions', () => {
    const round = fundingRound([{ size: m(1) }, { size: m(-1) }], m('10000'), m('0.0001'));
    expect(round.payments.map((p) => p.payment.toFixed())).toEqual(['-1', '1']);
    expect(round.dust.isZero()).toBe(true);
    expect(fundingRound([], m(1), m('0.01')).dust.isZero()).toBe(true);
  });

  it('over a market (sizes summing to 0) sums to −dust, with 0 ≤ dust < positions × 10⁻⁸', () => {
    const lots = fc.integer({ min: -1e7, max: 1e7 });
    fc.assert(
      fc.property(
        fc.array(lots, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 1e10 }),
        fc.integer({ min: -2_000_000, max: 2_000_000 }),
        (raw, markCents, rateUnits) => {
          const sizes = raw.map((l) => m(l).shiftedBy(-3));
          const net = sizes.reduce((s, x) => s.plus(x), m(0));
          const positions = [...sizes, net.negated()].map((size) => ({ size }));
          const mark = m(markCents).shiftedBy(-2);
          const rate = m(rateUnits).shiftedBy(-8);
          const { payments, dust } = fundingRound(positions, mark, rate);
          const sum = payments.reduce((s, p) => s.plus(p.payment), m(0));
          const exactOk = payments.every((p) => {
            const exact = p.position.size.times(mark).times(rate).negated();
            return p.payment.lte(exact) && exact.minus(p.payment).lt('0.00000001');
          });
          return (
            exactOk &&
            sum.plus(dust).isZero() &&
            dust.gte(0) &&
            dust.lt(m('0.00000001').times(positions.length))
          );
        },
      ),
    );
  });
});
