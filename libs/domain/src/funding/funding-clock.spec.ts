import { Money } from '../money/money';
import { FundingClock, fundingId } from './funding-clock';
import { oneMinuteMarket as market, T0 } from './__fixtures__/one-minute-market';

const m = (v: string | number) => new Money(v);
const MIN = 60_000;
const plain = (d: ReturnType<FundingClock['onMark']>) =>
  d.map((r) => [r.id, r.fundingTime, r.fundingRate.toFixed(), r.markPrice.toFixed()]);

describe('FundingClock', () => {
  it('settles one round per funding time passed, with the interval rate and the last mark before it', () => {
    const c = FundingClock.start('BTCUSDT', T0 + 1_000, market, 5_000);
    expect(c.onMark(market, T0 + 1_000, m(101), m('0.01'))).toEqual([]);
    expect(c.onMark(market, T0 + 30_000, m('101.5'), m('0.01'))).toEqual([]);
    expect(c.nextFundingTime).toBe(T0 + MIN);
    // premium 0.01 throughout: 0.01 + clamp(I − 0.01, ±0.0005) = 0.0095
    expect(plain(c.onMark(market, T0 + MIN, m(102), m(0)))).toEqual([
      [fundingId('BTCUSDT', T0 + MIN), T0 + MIN, '0.0095', '101.5'],
    ]);
    expect(fundingId('BTCUSDT', T0 + MIN)).toBe(`funding/BTCUSDT/${T0 + MIN}`);
    // Downtime: three funding times at once; the two intervals without samples pay the interest rate.
    expect(plain(c.onMark(market, T0 + 4 * MIN + 10, m(103), m(0)))).toEqual([
      [fundingId('BTCUSDT', T0 + 2 * MIN), T0 + 2 * MIN, '0.00000021', '102'],
      [fundingId('BTCUSDT', T0 + 3 * MIN), T0 + 3 * MIN, '0.00000021', '102'],
      [fundingId('BTCUSDT', T0 + 4 * MIN), T0 + 4 * MIN, '0.00000021', '102'],
    ]);
  });

  it('a replayed or late mark settles nothing again and does not move the mark back', () => {
    const c = FundingClock.start('ETHUSDT', T0, market, 5_000);
    c.onMark(market, T0 + 50_000, m(10), m('-0.002'));
    expect(c.onMark(market, T0 + 10_000, m(9), m('0.5'))).toEqual([]);
    expect(plain(c.onMark(market, T0 + MIN + 1, m(11), m(0)))).toEqual([
      [fundingId('ETHUSDT', T0 + MIN), T0 + MIN, '-0.0015', '10'],
    ]);
    expect(c.onMark(market, T0 + MIN + 1, m(11), m(0))).toEqual([]);
  });

  it('a restored clock continues exactly as the original', () => {
    const a = FundingClock.start('BTCUSDT', T0, market, 5_000);
    a.onMark(market, T0 + 5_000, m(100), m('0.001'));
    const b = FundingClock.fromJSON(JSON.parse(JSON.stringify(a.toJSON())));
    expect(b.onMark(market, T0 + MIN, m(100), m(0))).toEqual(a.onMark(market, T0 + MIN, m(100), m(0)));
    expect(b.toJSON()).toEqual(a.toJSON());
    expect(() => FundingClock.fromJSON({ ...a.toJSON(), mark: 'x' })).toThrow();
  });
});
