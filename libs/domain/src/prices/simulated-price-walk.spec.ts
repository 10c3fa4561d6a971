import fc from 'fast-check';
import { Money } from '../money/money';
import {
  mulberry32,
  SimulatedPriceWalk,
  simulatedPrices,
  symbolSeed,
  ticksToPrice,
} from './simulated-price-walk';

const btc = { seed: 1, symbol: 'BTCUSDT', tickSize: '0.1', referencePrice: '65000.0' };

describe('mulberry32', () => {
  it('is a pure function of its seed, giving uint32 values', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(xs);
    for (const x of xs) expect(Number.isInteger(x) && x >= 0 && x < 2 ** 32).toBe(true);
    expect(mulberry32(43)()).not.toBe(xs[0]);
  });

  it('gives each symbol its own stream', () => {
    expect(symbolSeed(1, 'BTCUSDT')).not.toBe(symbolSeed(1, 'ETHUSDT'));
    expect(symbolSeed(1, 'BTCUSDT')).not.toBe(symbolSeed(2, 'BTCUSDT'));
    expect(symbolSeed(1, 'BTCUSDT')).toBe(symbolSeed(1, 'BTCUSDT'));
  });
});

describe('SimulatedPriceWalk', () => {
  it('same seed and tick count give the same price sequence', () => {
    const first = simulatedPrices(btc, 500);
    expect(simulatedPrices(btc, 500)).toEqual(first);
    expect(simulatedPrices(btc, 200)).toEqual(first.slice(0, 200));
    expect(simulatedPrices({ ...btc, seed: 2 }, 500)).not.toEqual(first);
  });

  it('is pinned: seed 1 always gives these first BTCUSDT prices', () => {
    expect(simulatedPrices(btc, 5)).toEqual(['64995.9', '65000.8', '64988.3', '64984.3', '64972.5']);
  });

  it('starts at the reference price and moves by at most maxStepTicks per step', () => {
    const walk = new SimulatedPriceWalk(btc);
    expect(walk.price).toBe('65000.0');
    expect(walk.tick).toBe(0);
    // 2 bps of 650000 ticks = 130 ticks (13 USDT).
    expect(walk.maxStepTicks).toBe(130);
    let prev = walk.ticks;
    for (let i = 1; i <= 1000; i++) {
      walk.next();
      expect(Math.abs(walk.ticks - prev)).toBeLessThanOrEqual(130);
      prev = walk.ticks;
    }
    expect(walk.tick).toBe(1000);
  });

  it('advanceTo reaches the same price as stepping one by one', () => {
    const stepped = simulatedPrices(btc, 50);
    const walk = new SimulatedPriceWalk(btc);
    expect(walk.advanceTo(50)).toBe(stepped[49]);
    expect(walk.advanceTo(10)).toBe(stepped[49]);
  });

  it('rounds a reference that is not on the grid down to a tick, never below one tick', () => {
    expect(new SimulatedPriceWalk({ ...btc, referencePrice: '100.07' }).price).toBe('100.0');
    expect(new SimulatedPriceWalk({ ...btc, referencePrice: '0.01' }).price).toBe('0.1');
  });

  it('formats ticks with the market precision', () => {
    expect(ticksToPrice(1, '0.001')).toBe('0.001');
    expect(ticksToPrice(150000, '0.001')).toBe('150.000');
    expect(ticksToPrice(7, '5')).toBe('35');
  });

  it('prices are always positive multiples of tickSize (property)', () => {
    const tickSize = fc.constantFrom('0.1', '0.01', '0.001', '0.5', '1', '5', '0.00001');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        tickSize,
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.option(fc.integer({ min: 0, max: 1_000 }), { nil: undefined }),
        fc.integer({ min: 1, max: 300 }),
        (seed, tick, referenceTicks, maxStepTicks, steps) => {
          const referencePrice = ticksToPrice(referenceTicks, tick);
          const options = { seed, symbol: 'XUSDT', tickSize: tick, referencePrice, maxStepTicks };
          const prices = simulatedPrices(options, steps);
          expect(simulatedPrices(options, steps)).toEqual(prices);
          for (const p of prices) {
            const v = new Money(p);
            expect(v.gt(0)).toBe(true);
            expect(v.mod(tick).isZero()).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('stays positive when the steps dwarf the price (clamped at one tick)', () => {
    const walk = new SimulatedPriceWalk({ ...btc, referencePrice: '0.3', maxStepTicks: 50 });
    let lowest = walk.ticks;
    for (let i = 0; i < 2000; i++) {
      walk.next();
      lowest = Math.min(lowest, walk.ticks);
    }
    expect(lowest).toBe(1);
  });
});
