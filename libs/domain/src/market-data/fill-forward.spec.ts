import { fillForward, periodBuckets } from './fill-forward';

const MIN = 60_000;
const H = 60 * MIN;
const T0 = Date.UTC(2026, 2, 1); // a day's open, so every period's bucket opens there
const at = (minutes: number) => T0 + minutes * MIN;

describe('periodBuckets', () => {
  const now = at(23) + 17_000; // inside the 20m-25m bucket of 5m

  it('answers the last `limit` buckets up to now, the current one included, oldest first', () => {
    expect(periodBuckets('5m', { limit: 3 }, now)).toEqual([at(10), at(15), at(20)]);
    expect(periodBuckets('15m', { limit: 2 }, now)).toEqual([at(0), at(15)]);
    expect(periodBuckets('1h', { limit: 2 }, now)).toEqual([T0 - H, T0]);
    expect(periodBuckets('1d', { limit: 1 }, now)).toEqual([T0]);
  });

  it('with endTime, the last `limit` buckets opening at or before it', () => {
    expect(periodBuckets('5m', { endTime: at(10), limit: 2 }, now)).toEqual([at(5), at(10)]);
    expect(periodBuckets('5m', { endTime: at(10) - 1, limit: 2 }, now)).toEqual([at(0), at(5)]);
  });

  it('with startTime, the first `limit` buckets opening at or after it, never past now', () => {
    expect(periodBuckets('5m', { startTime: at(5), limit: 2 }, now)).toEqual([at(5), at(10)]);
    // A bucket that opened before startTime is not answered, as a row stamped before it would not be.
    expect(periodBuckets('5m', { startTime: at(5) + 1, limit: 2 }, now)).toEqual([at(10), at(15)]);
    expect(periodBuckets('5m', { startTime: at(5), limit: 100 }, now)).toEqual([
      at(5),
      at(10),
      at(15),
      at(20),
    ]);
    expect(periodBuckets('5m', { startTime: at(5), endTime: at(14), limit: 100 }, now)).toEqual([
      at(5),
      at(10),
    ]);
  });

  it('clips an endTime in the future at now, and answers nothing for an empty window', () => {
    expect(periodBuckets('5m', { endTime: at(60), limit: 2 }, now)).toEqual([at(15), at(20)]);
    expect(periodBuckets('5m', { startTime: at(25), limit: 5 }, now)).toEqual([]);
    expect(periodBuckets('5m', { startTime: at(15), endTime: at(10), limit: 5 }, now)).toEqual([]);
    expect(periodBuckets('5m', { limit: 0 }, now)).toEqual([]);
  });
});

describe('fillForward', () => {
  type P = { t: number; v: string };
  const p = (minutes: number, v: string): P => ({ t: at(minutes), v });
  const fill = (buckets: number[], points: P[]) =>
    fillForward(buckets, points, (x) => x.t).map((b) => [(b.time - T0) / MIN, b.point.v, b.carried]);
  const buckets = [0, 5, 10, 15, 20, 25].map(at);

  it('carries the last point into every bucket without one of its own', () => {
    expect(fill(buckets, [p(0, 'a'), p(10, 'b'), p(25, 'c')])).toEqual([
      [0, 'a', false],
      [5, 'a', true],
      [10, 'b', false],
      [15, 'b', true],
      [20, 'b', true],
      [25, 'c', false],
    ]);
  });

  it('starts from a point before the first bucket (the stored point the window opens with)', () => {
    expect(fill(buckets.slice(2, 4), [p(-30, 'seed'), p(15, 'x')])).toEqual([
      [10, 'seed', true],
      [15, 'x', false],
    ]);
  });

  it('invents nothing before the first point, and ignores points after the last bucket', () => {
    expect(fill(buckets, [p(15, 'first'), p(40, 'later')])).toEqual([
      [15, 'first', false],
      [20, 'first', true],
      [25, 'first', true],
    ]);
    expect(fill(buckets, [])).toEqual([]);
    expect(fill([], [p(0, 'a')])).toEqual([]);
  });

  it('counts a point stamped inside a bucket (not at its open) from the next bucket on', () => {
    expect(fill([at(0), at(5)], [{ t: at(2), v: 'mid' }])).toEqual([[5, 'mid', true]]);
  });
});
