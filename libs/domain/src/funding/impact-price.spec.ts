import fc from 'fast-check';
import { DepthBook } from '../market-data/depth-book';
import { Money } from '../money/money';
import { impactMarginNotional, impactPrice, impactPrices } from './impact-price';

const m = (v: string) => new Money(v);

describe('impactMarginNotional', () => {
  it('is 200 USDT over the initial margin rate at max leverage (Binance: 125x → 25,000)', () => {
    expect(impactMarginNotional(125).toFixed()).toBe('25000'); // 200 / 0.8 %
    expect(impactMarginNotional(20).toFixed()).toBe('4000'); // 200 / 5 %
    expect(impactMarginNotional(1).toFixed()).toBe('200');
    expect(impactMarginNotional(50, '1000').toFixed()).toBe('50000');
  });

  it('rejects a leverage below 1 or fractional and a margin that is not positive', () => {
    expect(() => impactMarginNotional(0)).toThrow(RangeError);
    expect(() => impactMarginNotional(2.5)).toThrow(RangeError);
    expect(() => impactMarginNotional(10, '0')).toThrow(RangeError);
    expect(() => impactMarginNotional(10, '1e3')).toThrow(RangeError);
  });
});

describe('impactPrice', () => {
  it('is the best price when the first level holds the notional', () => {
    expect(impactPrice([['100', '250']], '25000')?.toFixed()).toBe('100');
    expect(impactPrice([['100', '1000']], '25000')?.toFixed()).toBe('100');
  });

  it('averages over the levels swept: notional / quantity filled', () => {
    // asks: 10,000 at 100 (100), then 15,000 at 150 (100) → 25,000 / 200 = 125
    const asks = [
      ['100', '100'],
      ['150', '1000'],
    ] as const;
    expect(impactPrice(asks, '25000')?.toFixed()).toBe('125');
    // bids: 10,000 at 100 (100), then 15,000 at 50 (300) → 25,000 / 400 = 62.5
    const bids = [
      ['100', '100'],
      ['50', '1000'],
    ] as const;
    expect(impactPrice(bids, '25000')?.toFixed()).toBe('62.5');
  });

  it('rounds only once, at 18 places', () => {
    // 25,000 / (100 + 15,000 / 101) = 2,525,000 / 25,100
    const p = impactPrice(
      [
        ['100', '100'],
        ['101', '200'],
      ],
      '25000',
    );
    expect(p?.toFixed()).toBe(m('2525000').div('25100').toFixed());
    expect(p?.toFixed()).toBe('100.597609561752988047');
  });

  it('fills exactly at a level boundary', () => {
    const levels = [
      ['100', '100'],
      ['150', '100'],
    ] as const;
    expect(impactPrice(levels, '25000')?.toFixed()).toBe('125');
  });

  it('is undefined when the side holds less than the notional, or is empty', () => {
    expect(impactPrice([], '25000')).toBeUndefined();
    expect(
      impactPrice(
        [
          ['100', '100'],
          ['150', '99.999'],
        ],
        '25000',
      ),
    ).toBeUndefined();
  });

  it('skips levels of zero quantity and takes Money levels', () => {
    expect(
      impactPrice(
        [
          [m('100'), m('0')],
          [m('99'), m('1000')],
        ],
        m('25000'),
      )?.toFixed(),
    ).toBe('99');
  });

  it('rejects malformed levels and a notional that is not positive', () => {
    expect(() => impactPrice([['0', '1']], '10')).toThrow(RangeError);
    expect(() => impactPrice([['100', '-1']], '10')).toThrow(RangeError);
    expect(() => impactPrice([['abc', '1']], '10')).toThrow(RangeError);
    expect(() => impactPrice([['100', '1']], '0')).toThrow(RangeError);
  });

  it('reads a DepthBook top directly', () => {
    const book = new DepthBook();
    book.apply({
      seq: 1,
      bids: [
        ['99', '10'],
        ['98.5', '100'],
      ],
      asks: [
        ['101', '10'],
        ['102', '5'],
      ],
    });
    const { impactBid, impactAsk } = impactPrices(book.top(), '1980');
    // bids: 990 at 99 (10) + 990 at 98.5 → 1980 / (10 + 990 / 98.5)
    expect(impactBid?.toFixed()).toBe(m('1980').times('98.5').div(m('985').plus('990')).toFixed());
    expect(impactAsk).toBeUndefined(); // asks hold 1010 + 510 = 1520 < 1980
  });

  it('lies between the best price and the last level touched', () => {
    const level = fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 1000 }));
    fc.assert(
      fc.property(fc.array(level, { maxLength: 8 }), fc.integer({ min: 1, max: 5_000_000 }), (raw, n) => {
        // asks ascending; prices in cents, sizes in thousandths
        let price = 0;
        const levels = raw.map(([dp, q]) => {
          price += dp;
          return [m(String(price)).shiftedBy(-2), m(String(q)).shiftedBy(-3)] as const;
        });
        const notional = m(String(n)).shiftedBy(-2);
        const total = levels.reduce((s, [p, q]) => s.plus(p.times(q)), m('0'));
        const avg = impactPrice(levels, notional);
        if (total.lt(notional)) return avg === undefined;
        if (!avg) return false;
        const touched = levels.filter(([, q]) => q.gt(0));
        let cum = m('0');
        let last = touched[0][0];
        for (const [p, q] of touched) {
          last = p;
          cum = cum.plus(p.times(q));
          if (cum.gte(notional)) break;
        }
        return avg.gte(touched[0][0].minus('1e-15')) && avg.lte(last.plus('1e-15'));
      }),
    );
  });
});
