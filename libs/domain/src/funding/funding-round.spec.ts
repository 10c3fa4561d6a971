// One funding interval worked end to end with the module's rules, as a service composes them:
// the hand-computed figures an end-to-end test on a one-minute chain can expect.
import { DepthBook } from '../market-data/depth-book';
import { Money } from '../money/money';
import {
  MovingAverage,
  PremiumSampler,
  basisSample,
  fundingIntervalMs,
  fundingRound,
  impactMarginNotional,
  impactPrices,
  markPriceOf,
  marketFundingRate,
  premiumIndexOf,
} from './index';
import { oneMinuteMarket as market, T0 } from './__fixtures__/one-minute-market';

const m = (v: string | number) => new Money(v);

it('a book above the index for a one-minute interval: rate, mark and payments', () => {
  const interval = fundingIntervalMs(market);
  const imn = impactMarginNotional(market.maxLeverage); // 4,000 USDT
  const book = new DepthBook();
  book.apply({ seq: 1, bids: [['101', '100']], asks: [['101.5', '100']] });
  const index = m('100');

  const sampler = PremiumSampler.forTime(T0, { intervalMs: interval, cadenceMs: 5000 });
  const basis = new MovingAverage(30_000);
  for (let t = T0; t < T0 + interval; t += 1000) {
    const top = book.top();
    if (t % 5000 === 0) {
      const { impactBid, impactAsk } = impactPrices(top, imn); // 101 and 101.5
      const premium = premiumIndexOf(index, impactBid, impactAsk); // (1 − 0) / 100
      if (premium) sampler.add(t, premium);
    }
    const b = basisSample(top, index); // 101.25 − 100
    if (b) basis.add(t, b);
  }
  const [closed] = sampler.settleDue(T0 + interval);
  expect(closed).toEqual({ fundingTime: T0 + interval, averagePremium: m('0.01'), samples: 12 });

  // I = 0.0000125 / 60; F = 0.01 + clamp(I − 0.01, ±0.0005) = 0.0095
  const rate = marketFundingRate(market, closed.averagePremium);
  expect(rate.toFixed()).toBe('0.0095');

  // price 1 = 100 × (1 + 0.0095 × 1) = 100.95, price 2 = 100 + 1.25, last 101.2 → 101.2
  const mark = markPriceOf({
    time: T0 + interval,
    intervalMs: interval,
    index,
    fundingRate: rate,
    basisAverage: basis.average(T0 + interval),
    lastPrice: m('101.2'),
  });
  expect(mark?.toFixed()).toBe('101.2');

  const round = fundingRound(
    [
      { user: 'long', size: m('2') },
      { user: 'short', size: m('-2') },
    ],
    mark ?? m(0),
    rate,
  );
  // 2 × 101.2 × 0.0095 = 1.9228
  expect(round.payments.map((p) => [p.position.user, p.payment.toFixed()])).toEqual([
    ['long', '-1.9228'],
    ['short', '1.9228'],
  ]);
  expect(round.dust.toFixed()).toBe('0');
});
