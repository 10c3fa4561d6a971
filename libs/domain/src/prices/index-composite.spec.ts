import fc from 'fast-check';
import { Money } from '../money/money';
import { composeIndexPrice, type IndexSourceInput, median, weightedMedian } from './index-composite';

const NOW = 1_700_000_000_000;
const MINUTE = 60_000;

/** A source that read `price` `ageMs` ago, fresh for a minute, weight 1. */
const src = (
  name: string,
  price: string,
  ageMs = 0,
  extra: Partial<IndexSourceInput> = {},
): IndexSourceInput => ({
  name,
  weight: '1',
  maxAgeMs: MINUTE,
  reading: { price, time: NOW - ageMs },
  ...extra,
});

const m = (v: string | number) => new Money(v);
const states = (c: ReturnType<typeof composeIndexPrice>) => c.sources.map((s) => [s.name, s.state]);

describe('median and weightedMedian', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([m(3)]).toFixed()).toBe('3');
    expect(median([m(5), m(1), m(3)]).toFixed()).toBe('3');
    expect(median([m(4), m(1), m(3), m(2)]).toFixed()).toBe('2.5');
    expect(median([m('0.00000001'), m('0.00000002')]).toFixed()).toBe('0.000000015');
    expect(() => median([])).toThrow(RangeError);
  });

  it('weights pull the median towards the heavier source', () => {
    const p = (price: string, weight: string) => ({ price: m(price), weight: m(weight) });
    expect(weightedMedian([p('100', '1'), p('110', '3')]).toFixed()).toBe('110');
    expect(weightedMedian([p('100', '3'), p('110', '1')]).toFixed()).toBe('100');
    // Cumulative weight reaches exactly half at 100: the mean of 100 and the next price.
    expect(weightedMedian([p('100', '2'), p('110', '1'), p('120', '1')]).toFixed()).toBe('105');
    expect(weightedMedian([p('120', '0.5'), p('100', '0.25'), p('110', '0.25')]).toFixed()).toBe('115');
    expect(() => weightedMedian([p('1', '0')])).toThrow(RangeError);
    expect(() => weightedMedian([])).toThrow(RangeError);
  });

  it('with equal weights is the plain median (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10_000_000 }), { minLength: 1, maxLength: 9 }),
        fc.constantFrom('1', '0.3', '7'),
        (cents, w) => {
          const prices = cents.map((c) => m(c).div(100));
          const weighted = weightedMedian(prices.map((price) => ({ price, weight: m(w) })));
          expect(weighted.toFixed()).toBe(median(prices).toFixed());
        },
      ),
    );
  });
});

describe('composeIndexPrice', () => {
  it('one fresh source is the index', () => {
    const c = composeIndexPrice([src('a', '65000.12345678')], { now: NOW, maxDeviationPercent: '1' });
    expect(c).toEqual({
      status: 'AVAILABLE',
      price: '65000.12345678',
      sources: [{ name: 'a', state: 'USED', price: '65000.12345678', time: NOW }],
    });
  });

  it('is the median of the fresh sources', () => {
    const c = composeIndexPrice([src('a', '100'), src('b', '102'), src('c', '101'), src('d', '103')], {
      now: NOW,
    });
    expect(c).toMatchObject({ status: 'AVAILABLE', price: '101.5' });
  });

  it('drops a source older than its max age; exactly max age is still fresh', () => {
    const c = composeIndexPrice(
      [src('a', '100', MINUTE), src('b', '200', MINUTE + 1), src('c', '102', 0, { maxAgeMs: 5 * MINUTE })],
      { now: NOW },
    );
    expect(c).toMatchObject({ status: 'AVAILABLE', price: '101' });
    expect(states(c)).toEqual([
      ['a', 'USED'],
      ['b', 'STALE'],
      ['c', 'USED'],
    ]);
  });

  it('takes a reading from slightly ahead of the clock as fresh', () => {
    expect(composeIndexPrice([src('a', '100', -2000)], { now: NOW })).toMatchObject({ status: 'AVAILABLE' });
  });

  it('all stale: the price is unavailable', () => {
    const c = composeIndexPrice([src('a', '100', 2 * MINUTE), src('b', '101', 3 * MINUTE)], { now: NOW });
    expect(c).toEqual({
      status: 'UNAVAILABLE',
      reason: 'NO_FRESH_SOURCE',
      sources: [
        { name: 'a', state: 'STALE', price: '100', time: NOW - 2 * MINUTE },
        { name: 'b', state: 'STALE', price: '101', time: NOW - 3 * MINUTE },
      ],
    });
  });

  it('no source, or sources without data: unavailable', () => {
    expect(composeIndexPrice([], { now: NOW })).toMatchObject({
      status: 'UNAVAILABLE',
      reason: 'NO_FRESH_SOURCE',
    });
    const c = composeIndexPrice([{ name: 'admin', weight: '1', maxAgeMs: MINUTE }], { now: NOW });
    expect(c).toEqual({
      status: 'UNAVAILABLE',
      reason: 'NO_FRESH_SOURCE',
      sources: [{ name: 'admin', state: 'NO_DATA' }],
    });
  });

  it('drops readings that are not positive decimals', () => {
    const c = composeIndexPrice(
      [src('a', '0'), src('b', '-5'), src('c', 'NaN'), src('d', '1e3'), src('e', '7')],
      {
        now: NOW,
      },
    );
    expect(c).toMatchObject({ status: 'AVAILABLE', price: '7' });
    expect(states(c).map(([, s]) => s)).toEqual(['INVALID', 'INVALID', 'INVALID', 'INVALID', 'USED']);
  });

  it('drops a source further than the allowed deviation from the median; the limit itself is kept', () => {
    const c = composeIndexPrice([src('a', '100'), src('b', '101'), src('c', '200'), src('d', '96.96')], {
      now: NOW,
      maxDeviationPercent: '4',
    });
    // Median of the four: (100 + 101) / 2 = 100.5; d is 3.52 % below it, c 99 % above.
    expect(states(c)).toEqual([
      ['a', 'USED'],
      ['b', 'USED'],
      ['c', 'DEVIATION'],
      ['d', 'USED'],
    ]);
    expect(c).toMatchObject({ status: 'AVAILABLE', price: '100' });
    const edge = composeIndexPrice([src('a', '100'), src('b', '100'), src('c', '105')], {
      now: NOW,
      maxDeviationPercent: '5',
    });
    expect(states(edge).map(([, s]) => s)).toEqual(['USED', 'USED', 'USED']);
  });

  it('one outlier of three is dropped, not the two good sources', () => {
    const c = composeIndexPrice([src('a', '100'), src('b', '101'), src('c', '200')], {
      now: NOW,
      maxDeviationPercent: '5',
    });
    expect(states(c).map(([, s]) => s)).toEqual(['USED', 'USED', 'DEVIATION']);
    expect(c).toMatchObject({ status: 'AVAILABLE', price: '100.5' });
  });

  it('two sources disagreeing: both dropped and the price is unavailable', () => {
    const c = composeIndexPrice([src('a', '100'), src('b', '150')], { now: NOW, maxDeviationPercent: '10' });
    expect(c).toMatchObject({ status: 'UNAVAILABLE', reason: 'SOURCES_DISAGREE' });
    expect(states(c).map(([, s]) => s)).toEqual(['DEVIATION', 'DEVIATION']);
    // Within the guard (each 2.4 % from their mean of 102.5): the mean is the index.
    expect(
      composeIndexPrice([src('a', '100'), src('b', '105')], { now: NOW, maxDeviationPercent: '10' }),
    ).toMatchObject({
      status: 'AVAILABLE',
      price: '102.5',
    });
    // No guard configured: disagreeing sources are still averaged.
    expect(composeIndexPrice([src('a', '100'), src('b', '150')], { now: NOW })).toMatchObject({
      price: '125',
    });
  });

  it('stale sources take no part in the deviation reference', () => {
    const c = composeIndexPrice([src('a', '100'), src('b', '5', 2 * MINUTE), src('c', '5', 2 * MINUTE)], {
      now: NOW,
      maxDeviationPercent: '1',
    });
    expect(states(c).map(([, s]) => s)).toEqual(['USED', 'STALE', 'STALE']);
    expect(c).toMatchObject({ status: 'AVAILABLE', price: '100' });
  });

  it('weights: the weighted median of the sources that remain', () => {
    const sources = [
      src('a', '100', 0, { weight: '1' }),
      src('b', '102', 0, { weight: '1' }),
      src('c', '103', 0, { weight: '3' }),
    ];
    expect(composeIndexPrice(sources, { now: NOW })).toMatchObject({ price: '103' });
    // The heavy source stale: the two light ones remain, at equal weight.
    const staleHeavy = [
      ...sources.slice(0, 2),
      { ...sources[2]!, reading: { price: '103', time: NOW - 2 * MINUTE } },
    ];
    expect(composeIndexPrice(staleHeavy, { now: NOW })).toMatchObject({ price: '101' });
  });

  it('an open circuit drops a source however fresh its last reading; all open says so', () => {
    const c = composeIndexPrice([src('a', '100', 0, { circuitOpen: true }), src('b', '101')], { now: NOW });
    expect(c).toMatchObject({ status: 'AVAILABLE', price: '101' });
    expect(states(c)).toEqual([
      ['a', 'CIRCUIT_OPEN'],
      ['b', 'USED'],
    ]);
    const all = composeIndexPrice(
      [src('a', '100', 0, { circuitOpen: true }), { name: 'b', weight: '1', maxAgeMs: 1, circuitOpen: true }],
      {
        now: NOW,
      },
    );
    expect(all).toMatchObject({ status: 'UNAVAILABLE', reason: 'CIRCUIT_OPEN' });
    const mixed = composeIndexPrice(
      [src('a', '100', 0, { circuitOpen: true }), src('b', '101', 2 * MINUTE)],
      {
        now: NOW,
      },
    );
    expect(mixed).toMatchObject({ status: 'UNAVAILABLE', reason: 'NO_FRESH_SOURCE' });
  });

  it('the index always lies between the lowest and highest used source (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            cents: fc.integer({ min: 1, max: 100_000_000 }),
            age: fc.integer({ min: 0, max: 2 * MINUTE }),
            weight: fc.integer({ min: 1, max: 5 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.option(fc.constantFrom('0.5', '2', '10'), { nil: undefined }),
        (rows, maxDeviationPercent) => {
          const inputs = rows.map((r, i) =>
            src(`s${i}`, m(r.cents).div(100).toFixed(), r.age, { weight: String(r.weight) }),
          );
          const c = composeIndexPrice(inputs, { now: NOW, maxDeviationPercent });
          const used = c.sources.filter((s) => s.state === 'USED').map((s) => m(s.price!));
          expect(c.status === 'AVAILABLE').toBe(used.length > 0);
          if (c.status !== 'AVAILABLE') return;
          const lo = Money.min(...used);
          const hi = Money.max(...used);
          expect(m(c.price).gte(lo) && m(c.price).lte(hi)).toBe(true);
          for (const s of c.sources)
            if (s.state === 'USED') expect(NOW - s.time!).toBeLessThanOrEqual(MINUTE);
        },
      ),
      { numRuns: 300 },
    );
  });
});
