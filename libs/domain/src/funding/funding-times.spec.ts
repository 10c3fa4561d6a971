import fc from 'fast-check';
import {
  fundingIntervalMs,
  fundingTimeAtOrBefore,
  fundingTimesBetween,
  nextFundingTime,
} from './funding-times';

const H = 3_600_000;
const DAY = 24 * H;
const T0 = Date.UTC(2024, 0, 15); // a Monday, 00:00 UTC

describe('fundingIntervalMs', () => {
  it('reads hours, or minutes when the market sets them', () => {
    expect(fundingIntervalMs({ fundingIntervalHours: 8 })).toBe(8 * H);
    expect(fundingIntervalMs({ fundingIntervalHours: 4 })).toBe(4 * H);
    expect(fundingIntervalMs({ fundingIntervalHours: 8, fundingIntervalMinutes: 1 })).toBe(60_000);
    expect(fundingIntervalMs({ fundingIntervalHours: 8, fundingIntervalMinutes: 1440 })).toBe(DAY);
  });
});

describe('funding times', () => {
  it('are 00:00, 08:00 and 16:00 UTC for an 8 h market', () => {
    expect(nextFundingTime(T0 + 1, 8 * H)).toBe(T0 + 8 * H);
    expect(nextFundingTime(T0 + 8 * H - 1, 8 * H)).toBe(T0 + 8 * H);
    expect(nextFundingTime(T0 + 15 * H, 8 * H)).toBe(T0 + 16 * H);
    expect(nextFundingTime(T0 + 23 * H, 8 * H)).toBe(T0 + DAY);
  });

  it('at a funding time: that time is the latest, the next is one interval on', () => {
    expect(fundingTimeAtOrBefore(T0 + 8 * H, 8 * H)).toBe(T0 + 8 * H);
    expect(nextFundingTime(T0 + 8 * H, 8 * H)).toBe(T0 + 16 * H);
    expect(fundingTimeAtOrBefore(T0 + 8 * H - 1, 8 * H)).toBe(T0);
  });

  it('align a one-minute interval to whole minutes and 1 h / 4 h to whole hours', () => {
    expect(nextFundingTime(T0 + 61_500, 60_000)).toBe(T0 + 120_000);
    expect(nextFundingTime(T0 + 90 * 60_000, H)).toBe(T0 + 2 * H);
    expect(nextFundingTime(T0 + 5 * H, 4 * H)).toBe(T0 + 8 * H);
    expect(fundingTimeAtOrBefore(0, 8 * H)).toBe(0);
  });

  it('reject an interval that is not a positive integer of ms', () => {
    expect(() => nextFundingTime(T0, 0)).toThrow(RangeError);
    expect(() => nextFundingTime(T0, -H)).toThrow(RangeError);
    expect(() => nextFundingTime(T0, 1.5)).toThrow(RangeError);
  });

  it('hold the time in [latest, next) and are multiples of the interval', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.constantFrom(60_000, 5 * 60_000, H, 4 * H, 8 * H, DAY),
        (t, i) => {
          const latest = fundingTimeAtOrBefore(t, i);
          const next = nextFundingTime(t, i);
          return latest <= t && t < next && next - latest === i && latest % i === 0;
        },
      ),
    );
  });
});

describe('fundingTimesBetween', () => {
  it('lists the rounds owed in (after, upTo]', () => {
    expect(fundingTimesBetween(T0, T0 + 8 * H - 1, 8 * H)).toEqual([]);
    expect(fundingTimesBetween(T0, T0 + 8 * H, 8 * H)).toEqual([T0 + 8 * H]);
    expect(fundingTimesBetween(T0 - 1, T0 + DAY, 8 * H)).toEqual([T0, T0 + 8 * H, T0 + 16 * H, T0 + DAY]);
    expect(fundingTimesBetween(T0 + 60_000, T0 + 60_000, 60_000)).toEqual([]);
    expect(fundingTimesBetween(T0 + DAY, T0, 8 * H)).toEqual([]);
  });
});
