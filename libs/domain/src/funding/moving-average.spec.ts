import fc from 'fast-check';
import { Money } from '../money/money';
import { MovingAverage } from './moving-average';

const m = (v: string | number) => new Money(v);
const S = 1000;
const T0 = Date.UTC(2024, 0, 15);

describe('MovingAverage', () => {
  it('is undefined before any sample', () => {
    expect(new MovingAverage(300 * S).average(T0)).toBeUndefined();
  });

  it('averages the samples in (time − window, time]', () => {
    const ma = new MovingAverage(3 * S);
    ma.add(T0, m(1));
    ma.add(T0 + S, m(2));
    ma.add(T0 + 2 * S, m(6));
    expect(ma.average(T0 + 2 * S)?.toFixed()).toBe('3');
    expect(ma.average(T0 + 3 * S)?.toFixed()).toBe('4'); // T0 has left the window
    expect(ma.average(T0 + 5 * S - 1)?.toFixed()).toBe('6');
    expect(ma.average(T0 + 5 * S)).toBeUndefined();
    ma.add(T0 + 10 * S, m(-3));
    expect(ma.size).toBe(1);
    expect(ma.average(T0 + 10 * S)?.toFixed()).toBe('-3');
  });

  it('over 5 minutes sampled each second is the mean of the last 300 samples', () => {
    const ma = new MovingAverage(300 * S);
    for (let k = 0; k < 1000; k += 1) ma.add(T0 + k * S, m(k));
    // samples 700 … 999
    expect(ma.average(T0 + 999 * S)?.toFixed()).toBe('849.5');
    expect(ma.size).toBeLessThanOrEqual(301);
  });

  it('ignores a sample not after the last and refuses an average before it', () => {
    const ma = new MovingAverage(60 * S);
    expect(ma.add(T0, m(1))).toBe(true);
    expect(ma.add(T0, m(5))).toBe(false);
    expect(ma.add(T0 - 1, m(5))).toBe(false);
    expect(ma.average(T0)?.toFixed()).toBe('1');
    expect(() => ma.average(T0 - 1)).toThrow(RangeError);
    expect(() => new MovingAverage(0)).toThrow(RangeError);
  });

  it('divides once, at 18 places', () => {
    const ma = new MovingAverage(60 * S);
    ma.add(T0, m(1));
    ma.add(T0 + S, m(0));
    ma.add(T0 + 2 * S, m(0));
    expect(ma.average(T0 + 2 * S)?.toFixed()).toBe('0.333333333333333333');
  });

  it('round-trips through JSON, keeping only the window', () => {
    const ma = new MovingAverage(2 * S);
    ma.add(T0, m('0.5'));
    ma.add(T0 + S, m('1.5'));
    ma.add(T0 + 2 * S, m('-2.25'));
    const json = JSON.parse(JSON.stringify(ma));
    expect(json).toEqual({
      v: 1,
      windowMs: 2 * S,
      samples: [
        [T0 + S, '1.5'],
        [T0 + 2 * S, '-2.25'],
      ],
    });
    expect(
      MovingAverage.fromJSON(json)
        .average(T0 + 2 * S)
        ?.toFixed(),
    ).toBe('-0.375');
    expect(() => MovingAverage.fromJSON({ ...json, v: 2 })).toThrow();
    expect(() => MovingAverage.fromJSON({ ...json, samples: [...json.samples].reverse() })).toThrow(
      RangeError,
    );
  });

  it('equals the mean recomputed from scratch, also after a restore', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 5 * S }), fc.integer({ min: -1e6, max: 1e6 })), {
          maxLength: 80,
        }),
        fc.integer({ min: 1, max: 20 * S }),
        fc.nat(),
        (raw, windowMs, cut) => {
          let t = T0;
          const samples = raw.map(([dt, v]) => [(t += dt), m(v).shiftedBy(-4)] as const);
          let ma = new MovingAverage(windowMs);
          const at = cut % (samples.length + 1);
          samples.forEach(([time, v], i) => {
            if (i === at) ma = MovingAverage.fromJSON(JSON.parse(JSON.stringify(ma)));
            ma.add(time, v);
          });
          const now = t + (cut % windowMs);
          const inWindow = samples.filter(([time]) => time > now - windowMs).map(([, v]) => v);
          const expected = inWindow.length
            ? inWindow
                .reduce((s, v) => s.plus(v), m(0))
                .div(inWindow.length)
                .toFixed()
            : undefined;
          return ma.average(now)?.toFixed() === expected;
        },
      ),
    );
  });
});
