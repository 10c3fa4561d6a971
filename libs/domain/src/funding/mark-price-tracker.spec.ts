import { Money } from '../money/money';
import { MarkPriceTracker } from './mark-price-tracker';
import { oneMinuteMarket as market, T0 } from './__fixtures__/one-minute-market';

const m = (v: string | number) => new Money(v);
const above = { bids: [['101', '100']] as const, asks: [['102', '100']] as const };
const empty = { bids: [], asks: [] };

describe('MarkPriceTracker', () => {
  it('a book above the index: premium sample, estimated rate and the median mark', () => {
    const t = MarkPriceTracker.start(T0, market);
    const r = t.observe(market, { time: T0 + 30_000, index: m(100), book: above, lastPrice: m(101) })!;
    // premium = (101 − 100) / 100; rate = 0.01 + clamp(I − 0.01, ±0.0005) = 0.0095
    expect(r.premiumIndex.toFixed()).toBe('0.01');
    expect(r.fundingRate.toFixed()).toBe('0.0095');
    // price 1 = 100 × (1 + 0.0095 × 30 s / 60 s) = 100.475; price 2 = 100 + 1.5; last 101
    expect(r.markPrice.toFixed()).toBe('101');
    expect(r.nextFundingTime).toBe(T0 + 60_000);
    expect(r.interestRate.toFixed()).toBe('0.0000125');
  });

  it('no book and no trade: the mark is price 1 at the interest rate; the cap holds the rate', () => {
    const t = MarkPriceTracker.start(T0, market);
    const r = t.observe(market, { time: T0 + 15_000, index: m(100), book: empty, lastPrice: undefined })!;
    expect(r.premiumIndex.toFixed()).toBe('0');
    expect(r.fundingRate.toFixed()).toBe('0.00000021'); // 0.0000125 / 60 at 8 decimals
    expect(r.markPrice.toFixed()).toBe('100.00001575'); // 100 × (1 + 0.00000021 × 45 / 60)
    const capped = { ...market, fundingRateCap: '0.003' };
    const c = MarkPriceTracker.start(T0, capped);
    expect(
      c
        .observe(capped, { time: T0 + 1, index: m(100), book: above, lastPrice: undefined })!
        .fundingRate.toFixed(),
    ).toBe('0.003');
  });

  it('samples once per cadence slot, weights by slot, and starts afresh after a funding time', () => {
    const t = MarkPriceTracker.start(T0, market);
    const below = { bids: [['98', '100']] as const, asks: [['99', '100']] as const }; // premium −0.01
    t.observe(market, { time: T0 + 1_000, index: m(100), book: above, lastPrice: undefined }); // slot 1: +0.01
    t.observe(market, { time: T0 + 2_000, index: m(100), book: below, lastPrice: undefined }); // slot 1 again: ignored
    const r = t.observe(market, { time: T0 + 5_000, index: m(100), book: below, lastPrice: undefined })!; // slot 2
    // (1 × 0.01 + 2 × −0.01) / 3 = −0.00333…; rate = P + clamp(I − P, ±0.0005) = P + 0.0005
    expect(r.fundingRate.toFixed()).toBe('-0.00283333');
    const next = t.observe(market, { time: T0 + 60_000, index: m(100), book: above, lastPrice: undefined })!;
    expect(next.fundingRate.toFixed()).toBe('0.0095');
    expect(next.nextFundingTime).toBe(T0 + 120_000);
  });

  it('a restored tracker continues exactly as the original; an old tick adds no sample', () => {
    const a = MarkPriceTracker.start(T0, market);
    a.observe(market, { time: T0 + 10_000, index: m(100), book: above, lastPrice: m(101) });
    const b = MarkPriceTracker.fromJSON(JSON.parse(JSON.stringify(a.toJSON())));
    const o = { time: T0 + 20_000, index: m(100.5), book: empty, lastPrice: m(100.9) };
    const restored = b.observe(market, o)!;
    expect(restored).toEqual(a.observe(market, o));
    // slots 3 (+0.01) and 5 (0): (3 × 0.01) / 8 = 0.00375, rate 0.00325; a late tick changes nothing
    expect(restored.fundingRate.toFixed()).toBe('0.00325');
    const late = b.observe(market, { ...o, time: T0 + 5_000, book: above })!;
    expect(late.fundingRate.toFixed()).toBe('0.00325');
    expect(() => MarkPriceTracker.fromJSON({ v: 2 })).toThrow();
  });

  it('no positive index: no mark', () => {
    const t = MarkPriceTracker.start(T0, market);
    expect(t.observe(market, { time: T0, index: m(0), book: above, lastPrice: m(1) })).toBeUndefined();
  });
});
