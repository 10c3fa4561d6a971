import { ALGO_WINDOW_MS, algoWindow } from './algo-order-reader';

describe('algo query window', () => {
  const now = 1_700_000_000_000;

  it('defaults to the last 7 days, or 7 days from startTime or up to endTime', () => {
    expect(algoWindow(now)).toEqual({ from: now - ALGO_WINDOW_MS, to: now });
    expect(algoWindow(now, 1000)).toEqual({ from: 1000, to: 1000 + ALGO_WINDOW_MS });
    expect(algoWindow(now, undefined, 5e11)).toEqual({ from: 5e11 - ALGO_WINDOW_MS, to: 5e11 });
  });

  it('takes exactly 7 days and refuses one ms more with -1100', () => {
    expect(algoWindow(now, 0, ALGO_WINDOW_MS)).toEqual({ from: 0, to: ALGO_WINDOW_MS });
    expect(() => algoWindow(now, 0, ALGO_WINDOW_MS + 1)).toThrow(expect.objectContaining({ code: -1100 }));
  });
});
