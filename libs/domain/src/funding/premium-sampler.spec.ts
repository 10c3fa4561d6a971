import fc from 'fast-check';
import { Money } from '../money/money';
import { PremiumSampler, type PremiumSamplerState } from './premium-sampler';

const m = (v: string | number) => new Money(v);
const H = 3_600_000;
const S = 1000;
const T0 = Date.UTC(2024, 0, 15, 8); // a funding time of an 8 h market
const EIGHT = { intervalMs: 8 * H, cadenceMs: 5 * S };

describe('PremiumSampler', () => {
  it('samples the interval [previous funding time, next funding time)', () => {
    const s = PremiumSampler.forTime(T0 + 3 * H, EIGHT);
    expect(s.intervalStart).toBe(T0);
    expect(s.fundingTime).toBe(T0 + 8 * H);
    expect(PremiumSampler.forTime(T0, EIGHT).intervalStart).toBe(T0);
    expect(s.average()).toBeUndefined();
  });

  it('with one sample, averages to that sample', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    expect(s.add(T0, m('0.0003'))).toBe(true);
    expect(s.average()?.toFixed()).toBe('0.0003');
  });

  it('with two samples, weights them 1 and 2', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    s.add(T0, m('0.0003'));
    s.add(T0 + 5 * S, m('0.0006'));
    expect(s.average()?.toFixed()).toBe('0.0005'); // (0.0003 + 2 × 0.0006) / 3
  });

  it('over a full 8 h interval (5,760 samples at 5 s) gives (Σ k·p_k) / (Σ k)', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    let num = m(0);
    let den = 0;
    let taken = 0;
    for (let k = 1; k <= 5760; k += 1) {
      const p = m(k % 7)
        .minus(3)
        .shiftedBy(-5); // −0.00003 … 0.00003
      if (s.add(T0 + (k - 1) * 5 * S, p)) taken += 1;
      num = num.plus(p.times(k));
      den += k;
    }
    expect(taken).toBe(5760);
    expect(den).toBe((5760 * 5761) / 2);
    expect(s.samples).toBe(5760);
    expect(s.average()?.toFixed()).toBe(num.div(den).toFixed());
  });

  it('a constant premium averages to itself whatever the count', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    for (let k = 0; k < 5760; k += 1) s.add(T0 + k * 5 * S, m('-0.00012345'));
    expect(s.average()?.toFixed()).toBe('-0.00012345');
  });

  it('weights by the slot of the sample time, so missed samples leave their weight out', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    s.add(T0 + 9 * 5 * S, m('0.001')); // slot 10
    s.add(T0 + 19 * 5 * S + 4999, m('0.004')); // slot 20, late within its slot
    expect(s.average()?.toFixed()).toBe('0.003'); // (10 × 0.001 + 20 × 0.004) / 30
  });

  it('ignores a second sample in a slot, an earlier slot or a previous interval', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    expect(s.add(T0 + 10 * S, m('0.001'))).toBe(true); // slot 3
    expect(s.add(T0 + 14 * S, m('0.5'))).toBe(false); // slot 3 again
    expect(s.add(T0 + 5 * S, m('0.5'))).toBe(false); // slot 2
    expect(s.add(T0 - 1, m('0.5'))).toBe(false); // previous interval
    expect(s.samples).toBe(1);
    expect(s.average()?.toFixed()).toBe('0.001');
  });

  it('refuses a sample at or after the funding time until the interval is settled', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    s.add(T0 + 8 * H - 1, m('0.002')); // the last slot (5,760)
    expect(() => s.add(T0 + 8 * H, m('0.001'))).toThrow(RangeError);
    expect(s.settle()).toEqual({ fundingTime: T0 + 8 * H, averagePremium: m('0.002'), samples: 1 });
    expect(s.add(T0 + 8 * H, m('0.001'))).toBe(true); // slot 1 of the next interval
    expect(s.average()?.toFixed()).toBe('0.001');
  });

  it('settles an interval without samples with no average', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    expect(s.settle()).toEqual({ fundingTime: T0 + 8 * H, averagePremium: undefined, samples: 0 });
  });

  it('settles every due interval after downtime, one-minute interval', () => {
    const s = PremiumSampler.forTime(T0, { intervalMs: 60 * S, cadenceMs: S });
    s.add(T0 + 30 * S, m('0.01'));
    expect(s.settleDue(T0 + 60 * S - 1)).toEqual([]);
    const due = s.settleDue(T0 + 3 * 60 * S + 5 * S);
    expect(due.map((d) => [d.fundingTime, d.samples, d.averagePremium?.toFixed()])).toEqual([
      [T0 + 60 * S, 1, '0.01'],
      [T0 + 120 * S, 0, undefined],
      [T0 + 180 * S, 0, undefined],
    ]);
    expect(s.fundingTime).toBe(T0 + 240 * S);
  });

  it('rejects a cadence that does not divide the interval', () => {
    expect(() => PremiumSampler.forTime(T0, { intervalMs: 60 * S, cadenceMs: 7 * S })).toThrow(RangeError);
    expect(() => PremiumSampler.forTime(T0, { intervalMs: 60 * S, cadenceMs: 0 })).toThrow(RangeError);
  });

  it('round-trips through JSON and rejects a bad or inconsistent state', () => {
    const s = PremiumSampler.forTime(T0, EIGHT);
    s.add(T0, m('0.0001'));
    s.add(T0 + 5 * S, m('-0.0002'));
    const json = JSON.parse(JSON.stringify(s)) as PremiumSamplerState;
    expect(json).toEqual({
      v: 1,
      intervalMs: 8 * H,
      cadenceMs: 5 * S,
      fundingTime: T0 + 8 * H,
      lastSlot: 2,
      samples: 2,
      weightedSum: '-0.0003',
      weightSum: 3,
    });
    expect(PremiumSampler.fromJSON(json).average()?.toFixed()).toBe(s.average()?.toFixed());
    expect(() => PremiumSampler.fromJSON({ ...json, v: 2 })).toThrow();
    expect(() => PremiumSampler.fromJSON({ ...json, weightedSum: '1e3' })).toThrow();
    expect(() => PremiumSampler.fromJSON({ ...json, fundingTime: T0 + 1 })).toThrow(RangeError);
    expect(() => PremiumSampler.fromJSON({ ...json, weightSum: 4 })).toThrow(RangeError);
    expect(() => PremiumSampler.fromJSON({ ...json, samples: 3 })).toThrow(RangeError);
    expect(() => PremiumSampler.fromJSON({ ...json, lastSlot: 5761 })).toThrow(RangeError);
    expect(() => PremiumSampler.fromJSON({ ...json, extra: 1 })).toThrow();
  });

  it('a restored sampler continues exactly as the original', () => {
    const sample = fc.tuple(
      fc.integer({ min: 0, max: 3 * 60 * S - 1 }),
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
    );
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 60 }), fc.nat(), (raw, cut) => {
        const opts = { intervalMs: 60 * S, cadenceMs: S };
        const samples = [...raw].sort((a, b) => a[0] - b[0]);
        const a = PremiumSampler.forTime(T0, opts);
        const out: unknown[] = [];
        const feed = (s: PremiumSampler, from: number, to: number) => {
          for (const [dt, p] of samples.slice(from, to)) {
            const t = T0 + dt;
            out.push(...s.settleDue(t).map((d) => [d.fundingTime, d.samples, d.averagePremium?.toFixed()]));
            out.push(s.add(t, m(p).shiftedBy(-8)));
          }
        };
        const at = samples.length === 0 ? 0 : cut % (samples.length + 1);
        feed(a, 0, samples.length);
        const expected = [...out, a.average()?.toFixed()];
        out.length = 0;
        const b = PremiumSampler.forTime(T0, opts);
        feed(b, 0, at);
        const c = PremiumSampler.fromJSON(JSON.parse(JSON.stringify(b)));
        feed(c, at, samples.length);
        expect([...out, c.average()?.toFixed()]).toEqual(expected);
      }),
    );
  });
});
