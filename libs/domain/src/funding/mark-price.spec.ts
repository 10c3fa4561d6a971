import fc from 'fast-check';
import { Money } from '../money/money';
import { basisSample, fundingBasisPrice, markPriceOf, median3, type MarkPriceInputs } from './mark-price';

const m = (v: string | number) => new Money(v);
const H = 3_600_000;
const T0 = Date.UTC(2024, 0, 15); // a funding time
const base: MarkPriceInputs = {
  time: T0 + 4 * H, // 4 h before the 08:00 funding
  intervalMs: 8 * H,
  index: m('10000'),
  fundingRate: m('0.0001'),
  basisAverage: m('3'),
  lastPrice: m('10001'),
};
const mark = (patch: Partial<MarkPriceInputs>) => markPriceOf({ ...base, ...patch })?.toFixed();

describe('fundingBasisPrice (price 1)', () => {
  it('is index × (1 + rate × time until funding / interval)', () => {
    expect(fundingBasisPrice(m('10000'), m('0.0001'), T0 + 4 * H, 8 * H).toFixed()).toBe('10000.5');
    expect(fundingBasisPrice(m('10000'), m('-0.0003'), T0 + 6 * H, 8 * H).toFixed()).toBe('9999.25');
    expect(fundingBasisPrice(m('10000'), m('0.0001'), T0 + 8 * H - 1, 8 * H).toFixed()).toBe(
      m('10000')
        .times(
          m('0.0001')
            .times(1)
            .plus(8 * H),
        )
        .div(8 * H)
        .toFixed(),
    );
  });

  it('counts a full interval at a funding time itself', () => {
    expect(fundingBasisPrice(m('2000'), m('0.005'), T0, H).toFixed()).toBe('2010');
    expect(fundingBasisPrice(m('2000'), m('0.005'), T0 + 30 * 60_000, H).toFixed()).toBe('2005');
  });
});

describe('median3', () => {
  it('is the middle value in every order', () => {
    const [a, b, c] = [m(1), m(2), m(3)];
    for (const [x, y, z] of [
      [a, b, c],
      [a, c, b],
      [b, a, c],
      [b, c, a],
      [c, a, b],
      [c, b, a],
    ])
      expect(median3(x, y, z).toFixed()).toBe('2');
    expect(median3(a, a, c).toFixed()).toBe('1');
  });
});

describe('markPriceOf', () => {
  it('is the median of price 1, price 2 and the last price', () => {
    // price 1 = 10000.5, price 2 = 10003
    expect(mark({})).toBe('10001'); // last price in the middle
    expect(mark({ lastPrice: m('10010') })).toBe('10003'); // price 2 in the middle
    expect(mark({ lastPrice: m('9990') })).toBe('10000.5'); // price 1 in the middle
  });

  it('is price 1 when there is no trade yet or no basis in the window', () => {
    expect(mark({ lastPrice: undefined })).toBe('10000.5');
    expect(mark({ basisAverage: undefined })).toBe('10000.5');
    expect(mark({ basisAverage: undefined, lastPrice: undefined })).toBe('10000.5');
  });

  it('is undefined without a positive index', () => {
    expect(mark({ index: undefined })).toBeUndefined();
    expect(mark({ index: m(0) })).toBeUndefined();
  });

  it('rounds half-even to 8 decimals, or the decimals given', () => {
    // price 1 = 3 × (1 + 0.00000001 × 0.5) = 3.000000015
    const p = { index: m(3), fundingRate: m('0.00000001'), basisAverage: m(1), lastPrice: m(2) };
    expect(mark(p)).toBe('3.00000002');
    expect(mark({ ...p, index: m('3.000000005'), fundingRate: m(0) })).toBe('3');
    expect(mark({ ...p, decimals: 2 })).toBe('3');
  });

  it('always lies between the smallest and the largest of its inputs', () => {
    const price = fc.integer({ min: 1, max: 1e9 }).map((n) => m(n).shiftedBy(-2));
    fc.assert(
      fc.property(
        price,
        fc.integer({ min: -300, max: 300 }),
        fc.integer({ min: -1e6, max: 1e6 }),
        price,
        fc.integer({ min: 0, max: 8 * H }),
        (index, r, basis, last, dt) => {
          const i = { ...base, index, fundingRate: m(r).shiftedBy(-4), basisAverage: m(basis).shiftedBy(-2) };
          const got = markPriceOf({ ...i, lastPrice: last, time: T0 + dt, decimals: 18 });
          const p1 = fundingBasisPrice(index, i.fundingRate, T0 + dt, 8 * H);
          const all = [p1, index.plus(i.basisAverage), last];
          return got !== undefined && got.gte(Money.min(...all)) && got.lte(Money.max(...all));
        },
      ),
    );
  });
});

describe('basisSample', () => {
  it('is the mid of the best bid and ask minus the index', () => {
    const book = {
      bids: [
        ['100.1', '1'],
        ['99', '5'],
      ] as const,
      asks: [['100.4', '2']] as const,
    };
    expect(basisSample(book, m('100'))?.toFixed()).toBe('0.25');
    expect(basisSample(book, m('101'))?.toFixed()).toBe('-0.75');
  });

  it('is undefined with an empty side or without a positive index', () => {
    expect(basisSample({ bids: [], asks: [['1', '1']] }, m(1))).toBeUndefined();
    expect(basisSample({ bids: [['1', '1']], asks: [] }, m(1))).toBeUndefined();
    expect(basisSample({ bids: [['1', '1']], asks: [['2', '1']] }, undefined)).toBeUndefined();
    expect(basisSample({ bids: [['1', '1']], asks: [['2', '1']] }, m(0))).toBeUndefined();
  });
});
