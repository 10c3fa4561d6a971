import { MemoryHotStore } from '@perp/cache';
import { BINANCE_CEILINGS, orderWindows, weightWindows } from './rate-limit-rules';
import { WindowLimiter } from './window-limiter';

describe('WindowLimiter (memory hot store, fake clock)', () => {
  let now: number;
  let hot: MemoryHotStore;
  let limiter: WindowLimiter;
  const ceilings = { ...BINANCE_CEILINGS, weightPerMinute: 10, ordersPer10s: 3, ordersPerMinute: 5 };

  beforeEach(() => {
    now = 1_000_000;
    hot = new MemoryHotStore({ now: () => now });
    limiter = new WindowLimiter(hot);
  });
  afterEach(() => hot.close());

  it('counts up to the ceiling, then refuses without counting until the window ends', async () => {
    const w = weightWindows(ceilings, '10.0.0.1');
    expect((await limiter.take(w, 4)).states).toEqual([{ count: 4, resetInMs: 60_000 }]);
    now += 1_000;
    expect(await limiter.take(w, 6)).toMatchObject({
      states: [{ count: 10, resetInMs: 59_000 }],
      refused: [],
    });
    const refused = await limiter.take(w, 1);
    expect(refused).toMatchObject({ states: [{ count: 10, resetInMs: 59_000 }], refused: [0] });
    expect(await hot.get(w[0]!.key)).toBe('10'); // the refused request changed nothing
    now += 59_000; // the fixed window is over
    expect(await limiter.take(w, 1)).toMatchObject({
      states: [{ count: 1, resetInMs: 60_000 }],
      refused: [],
    });
  });

  it('a request heavier than what is left is refused even when lighter ones still fit', async () => {
    const w = weightWindows(ceilings, '10.0.0.2');
    await limiter.take(w, 8);
    expect((await limiter.take(w, 3)).refused).toEqual([0]);
    expect((await limiter.take(w, 2)).refused).toEqual([]);
  });

  it('amount 0 reads the counts without starting a window', async () => {
    const w = orderWindows(ceilings, 'u0');
    expect(await limiter.take(w, 0)).toMatchObject({
      states: [
        { count: 0, resetInMs: 10_000 },
        { count: 0, resetInMs: 60_000 },
      ],
      refused: [],
    });
    expect(await hot.get(w[0]!.key)).toBeUndefined();
  });

  it('orders: the 10 s window refuses first, the minute one after the 10 s window resets', async () => {
    const w = orderWindows(ceilings, 'u1');
    for (let i = 1; i <= 3; i++) expect((await limiter.take(w, 1)).refused).toEqual([]);
    const by10s = await limiter.take(w, 1);
    expect(by10s.refused).toEqual([0]);
    expect(by10s.states.map((s) => s.count)).toEqual([3, 3]);
    now += 10_000;
    expect((await limiter.take(w, 2)).states.map((s) => s.count)).toEqual([2, 5]);
    const by1m = await limiter.take(w, 1);
    expect(by1m.refused).toEqual([1]);
    // Refused by the minute window: the 10 s window did not count it either.
    expect(by1m.states.map((s) => s.count)).toEqual([2, 5]);
    expect(by1m.states[1]!.resetInMs).toBe(50_000);
  });

  it('never admits more than the ceiling to concurrent requests', async () => {
    const w = weightWindows(ceilings, '10.0.0.3');
    const outcomes = await Promise.all(Array.from({ length: 25 }, () => limiter.take(w, 1)));
    expect(outcomes.filter((o) => o.refused.length === 0)).toHaveLength(10);
    expect(Number(await hot.get(w[0]!.key))).toBeGreaterThanOrEqual(10);
  });

  it('keeps subjects apart', async () => {
    await limiter.take(weightWindows(ceilings, '10.0.0.4'), 10);
    expect((await limiter.take(weightWindows(ceilings, '10.0.0.4'), 1)).refused).toEqual([0]);
    expect((await limiter.take(weightWindows(ceilings, '10.0.0.5'), 1)).refused).toEqual([]);
    await limiter.take(orderWindows(ceilings, 'a'), 3);
    expect((await limiter.take(orderWindows(ceilings, 'b'), 1)).refused).toEqual([]);
  });
});
