import { Money } from '@perp/domain';
import { fromSteps, toSteps } from './conversions';

/** The decimal rendering fromSteps must always equal. */
const reference = (steps: number, step: string, decimals: number) =>
  new Money(steps).times(step).toFixed(decimals);

describe('fromSteps', () => {
  const STEPS = ['0.1', '0.01', '0.001', '0.25', '0.10', '1', '5', '10', '0.00000001', '0.5'];

  it('renders exactly as decimal arithmetic does, at every precision', () => {
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (const step of STEPS)
      for (let i = 0; i < 400; i++) {
        const steps = (next() % 2_000_001) - 1_000_000;
        for (const decimals of [0, 1, 2, 3, 4, 8])
          expect([step, steps, decimals, fromSteps(steps, step, decimals)]).toEqual([
            step,
            steps,
            decimals,
            reference(steps, step, decimals),
          ]);
      }
  });

  it('keeps the edges: zero, fewer decimals than the step (rounded down), beyond 2^53, odd steps', () => {
    const cases: [number, string, number][] = [
      [0, '0.1', 3],
      [-0, '0.01', 2],
      [15, '0.1', 0],
      [-15, '0.01', 1],
      [Number.MAX_SAFE_INTEGER, '0.1', 1],
      [Number.MAX_SAFE_INTEGER, '3', 0],
      [7, '1e-2', 2],
      [7, '.5', 1],
    ];
    for (const [steps, step, decimals] of cases)
      expect(fromSteps(steps, step, decimals)).toBe(reference(steps, step, decimals));
  });

  it('inverts toSteps on the grid', () => {
    expect(toSteps(fromSteps(650001, '0.1', 1), '0.1')).toBe(650001);
  });
});
