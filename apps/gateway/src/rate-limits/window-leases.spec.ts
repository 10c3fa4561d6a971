import { MemoryHotStore } from '@perp/cache';
import { BINANCE_CEILINGS, type LimitWindow, orderWindows, weightWindows } from './rate-limit-rules';
import { maxLease, WindowLeases } from './window-leases';
import type { LimitOutcome } from './window-limiter';

describe('WindowLeases (memory hot store, fake clock)', () => {
  let now: number;
  let hot: MemoryHotStore;
  let storeCalls: number;
  const window = (limit: number, ip: string): readonly [LimitWindow] => [
    weightWindows({ ...BINANCE_CEILINGS, weightPerMinute: limit }, ip)[0]!,
  ];
  const leases = () => new WindowLeases(hot, () => now);
  const counts = (outcomes: LimitOutcome[]) => outcomes.map((o) => o.states[0]!.count);

  beforeEach(() => {
    now = 1_000_000;
    hot = new MemoryHotStore({ now: () => now });
    storeCalls = 0;
    const incr = hot.incrWindow.bind(hot);
    hot.incrWindow = (...args) => {
      storeCalls++;
      return incr(...args);
    };
  });
  afterEach(() => hot.close());

  it('one replica: exact counts up to the ceiling, a refusal counts nothing, the window ends', async () => {
    const l = leases();
    const w = window(10, '10.0.0.1');
    expect(await l.take(w, 4)).toEqual({
      windows: w,
      states: [{ count: 4, resetInMs: 60_000 }],
      refused: [],
    });
    now += 1_000;
    const seen: LimitOutcome[] = [];
    for (let i = 0; i < 6; i++) seen.push(await l.take(w, 1));
    expect(counts(seen)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(seen.every((o) => o.refused.length === 0 && o.states[0]!.resetInMs === 59_000)).toBe(true);
    const refused = await l.take(w, 1);
    expect(refused).toMatchObject({ states: [{ count: 10, resetInMs: 59_000 }], refused: [0] });
    expect(await hot.get(w[0].key)).toBe('10'); // never reserved past the ceiling
    now += 59_000;
    expect(await l.take(w, 1)).toMatchObject({ states: [{ count: 1, resetInMs: 60_000 }], refused: [] });
  });

  it('a busy client spends from its lease without asking the store; a quiet one reserves its own weight', async () => {
    const l = leases();
    const w = window(2_400, '10.0.0.2');
    await l.take(w, 1);
    expect(await hot.get(w[0].key)).toBe('1'); // first request: exactly its weight
    for (let i = 0; i < 2_000; i++) await l.take(w, 1);
    expect(storeCalls).toBeLessThan(200);
    expect(Number(await hot.get(w[0].key)) - 2_001).toBeLessThanOrEqual(maxLease(2_400));
    now += 1_500; // quiet: the next reservation is the request's weight alone
    const quiet = leases();
    const other = window(2_400, '10.0.0.3');
    await quiet.take(other, 1);
    now += 1_500;
    await quiet.take(other, 1);
    expect(await hot.get(other[0].key)).toBe('2');
  });

  it('a lease answers synchronously', async () => {
    const l = leases();
    const w = window(100, '10.0.0.4');
    await l.take(w, 1);
    await l.take(w, 1); // a busy reservation: 1 unit more than needed
    const sync = l.take(w, 1);
    expect(sync).not.toBeInstanceOf(Promise);
    expect((sync as LimitOutcome).states[0]!.count).toBe(3);
  });

  it('a request heavier than what is left is refused, lighter ones still fit', async () => {
    const l = leases();
    const w = window(10, '10.0.0.5');
    await l.take(w, 8);
    expect((await l.take(w, 3)).refused).toEqual([0]);
    expect((await l.take(w, 2)).refused).toEqual([]);
    expect((await l.take(w, 1)).refused).toEqual([0]);
  });

  it('amount 0 reads the count without starting a window', async () => {
    const l = leases();
    const w = window(10, '10.0.0.6');
    expect(await l.take(w, 0)).toMatchObject({ states: [{ count: 0 }], refused: [] });
    expect(await hot.get(w[0].key)).toBeUndefined();
  });

  it('two replicas share the window: counts add up, and their leases never pass the ceiling', async () => {
    const a = leases();
    const b = leases();
    const w = window(40, '10.0.0.7');
    expect(counts([await a.take(w, 1), await b.take(w, 1), await a.take(w, 1)])).toEqual([1, 2, 3]);
    const both = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).take(w, 1)));
    expect(both.filter((o) => o.refused.length === 0)).toHaveLength(37);
    // A reservation that lost the race for the last units stays counted (as WindowLimiter's).
    expect(Number(await hot.get(w[0].key))).toBeGreaterThanOrEqual(40);
  });

  it("the bound: another replica's unspent lease counts as used here until the window ends", async () => {
    const a = leases();
    const b = leases();
    const w = window(2_400, '10.0.0.8');
    for (let i = 0; i < 100; i++) await a.take(w, 1);
    const held = Number(await hot.get(w[0].key)) - 100;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(maxLease(2_400));
    expect((await b.take(w, 1)).states[0]!.count).toBe(101 + held);
  });

  it('concurrent requests of one replica share one reservation at a time', async () => {
    const l = leases();
    const w = window(10, '10.0.0.9');
    const outcomes = await Promise.all(Array.from({ length: 25 }, () => l.take(w, 1)));
    expect(outcomes.filter((o) => o.refused.length === 0)).toHaveLength(10);
    expect(Number(await hot.get(w[0].key))).toBe(10);
  });

  describe("several windows (an account's orders per 10 s and per minute)", () => {
    const orders = (per10s: number, perMinute: number, user: string) =>
      orderWindows({ ...BINANCE_CEILINGS, ordersPer10s: per10s, ordersPerMinute: perMinute }, user);
    const both = (o: LimitOutcome) => o.states.map((s) => s.count);

    it('counts both exactly; a refusal by either spends in neither; each window ends on its own', async () => {
      const l = leases();
      const w = orders(3, 5, 'u1');
      const seen: LimitOutcome[] = [];
      for (let i = 0; i < 3; i++) seen.push(await l.take(w, 1));
      expect(seen.map(both)).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
      ]);
      const by10s = await l.take(w, 1);
      expect(by10s).toMatchObject({ refused: [0], states: [{ count: 3 }, { count: 3 }] });
      now += 10_000; // the 10 s window is over, the minute goes on
      expect(both(await l.take(w, 1))).toEqual([1, 4]);
      expect(both(await l.take(w, 1))).toEqual([2, 5]);
      const byMinute = await l.take(w, 1);
      expect(byMinute).toMatchObject({ refused: [1], states: [{ count: 2 }, { count: 5 }] });
      expect(await hot.get(w[1]!.key)).toBe('5'); // never reserved past either ceiling
      now += 50_000;
      expect(await l.take(w, 1)).toMatchObject({ refused: [], states: [{ count: 1 }, { count: 1 }] });
    });

    it('a busy account orders from its leases, synchronously, and the store sees a few reservations', async () => {
      const l = leases();
      const w = orders(300, 1_200, 'u2');
      for (let i = 0; i < 5; i++) await l.take(w, 1);
      let sync = 0;
      for (let i = 0; i < 200; i++) {
        const o = l.take(w, 1);
        if (!(o instanceof Promise)) sync++;
        expect(both(await o)).toEqual([6 + i, 6 + i]);
      }
      expect(sync).toBeGreaterThan(150);
      expect(storeCalls).toBeLessThan(60);
      const [in10s, inMinute] = [Number(await hot.get(w[0]!.key)), Number(await hot.get(w[1]!.key))];
      expect(in10s - 205).toBeLessThanOrEqual(maxLease(300));
      expect(inMinute - 205).toBeLessThanOrEqual(maxLease(1_200));
    });

    it('two replicas: both windows add up, and neither admits past its ceiling', async () => {
      const a = leases();
      const b = leases();
      const w = orders(20, 30, 'u3');
      const first = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take(w, 1)));
      expect(first.filter((o) => o.refused.length === 0)).toHaveLength(20);
      now += 10_000;
      const second = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take(w, 1)));
      // At most the minute's 30 in all, wherever the leases were held.
      expect(first.concat(second).filter((o) => o.refused.length === 0).length).toBeLessThanOrEqual(30);
      expect(second.filter((o) => o.refused.length === 0).length).toBeGreaterThan(0);
    });
  });

  it('a store failure rejects the reservation (the caller lets the request through)', async () => {
    const l = leases();
    hot.incrWindow = () => Promise.reject(new Error('down'));
    await expect(l.take(window(10, '10.0.0.10'), 1)).rejects.toThrow('down');
  });
});
