import { Money, mulberry32 } from '@perp/domain';
import { fromSteps, toSteps } from './conversions';

describe('fromSteps', () => {
  it('formats steps exactly as Money does, on and off its integer path', () => {
    const cases: [number, string, number][] = [
      [0, '0.1', 1],
      [5, '0.1', 1],
      [-5, '0.1', 1],
      [500_000, '0.1', 2],
      [7, '1', 0],
      [7, '1', 3],
      [3, '0.001', 3],
      [-1_234_567, '0.00001', 5],
      [12, '0.25', 2],
      // Fewer decimals than the step has: rounded by Money.
      [3, '0.05', 1],
      // Beyond 2^53: Money.
      [2 ** 52, '0.1', 1],
      [9, '1e-3', 3],
    ];
    for (const [steps, step, decimals] of cases)
      expect(fromSteps(steps, step, decimals)).toBe(new Money(steps).times(step).toFixed(decimals));
    const u32 = mulberry32(18);
    for (let i = 0; i < 2000; i++) {
      const steps = (u32() % 10_000_000) - 5_000_000;
      const step = ['0.1', '0.01', '0.001', '1', '10', '0.5'][u32() % 6]!;
      const decimals = 3 + (u32() % 3);
      expect(fromSteps(steps, step, decimals)).toBe(new Money(steps).times(step).toFixed(decimals));
    }
  });

  it('round-trips with toSteps', () => {
    expect(toSteps(fromSteps(123_456, '0.1', 1), '0.1')).toBe(123_456);
  });
});

describe('toSteps', () => {
  it('gives what Money gives, on and off its integer path', () => {
    const cases: [string, string][] = [
      ['50000.5', '0.1'],
      ['50000', '0.1'],
      ['0.001', '0.001'],
      ['0.0015', '0.001'],
      ['0.25', '0.5'],
      ['1.5', '0.5'],
      ['10', '10'],
      ['15', '10'],
      ['-3', '1'],
      ['1e3', '1'],
      ['007.10', '0.1'],
      ['0', '0.01'],
      ['9007199254740993', '1'],
    ];
    for (const [value, step] of cases) {
      const n = new Money(value).div(step);
      expect(toSteps(value, step)).toBe(n.isFinite() ? n.toNumber() : Number.NaN);
    }
  });
});
