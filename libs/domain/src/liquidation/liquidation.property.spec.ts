import fc from 'fast-check';
import { initialDepositsArb, MARKETS, opArb, USERS, type Op } from '../account/__fixtures__/simulation';
import type { Side } from '../account/order';
import { LiquidationSimulation, newLiquidationStats } from './__fixtures__/liquidation-simulation';

const user = fc.integer({ min: 0, max: USERS.length - 1 });
const market = fc.integer({ min: 0, max: MARKETS.length - 1 });

/**
 * Two different users trading at the mark: a resting LIMIT and a crossing MARKET (positions open
 * often; with the users alternating between partitions, many trades cross partitions).
 */
const pairArb: fc.Arbitrary<Op[]> = fc
  .record({
    maker: user,
    other: fc.integer({ min: 1, max: USERS.length - 1 }),
    market,
    side: fc.constantFrom<Side>('BUY', 'SELL'),
    lots: fc.integer({ min: 1, max: 3000 }),
    cid: fc.integer({ min: 1000, max: 1_000_000_000 }),
  })
  .map(({ maker, other, market, side, lots, cid }) => {
    const taker = (maker + other) % USERS.length;
    const order = (u: number, s: Side, type: 'LIMIT' | 'MARKET'): Op => ({
      kind: 'order',
      user: u,
      market,
      side: s,
      type,
      lots,
      offsetBp: 0,
      byQuote: false,
      reduceOnly: false,
      cid: cid + u,
    });
    return [order(maker, side, 'LIMIT'), order(taker, side === 'BUY' ? 'SELL' : 'BUY', 'MARKET')];
  });

/** A resting LIMIT up to 5 % away from the mark: liquidity a liquidation order may reach. */
const liquidityArb: fc.Arbitrary<Op[]> = fc
  .record({
    user,
    market,
    side: fc.constantFrom<Side>('BUY', 'SELL'),
    lots: fc.integer({ min: 1, max: 3000 }),
    awayBp: fc.integer({ min: 0, max: 500 }),
    cid: fc.integer({ min: 1000, max: 1_000_000_000 }),
  })
  .map(({ user, market, side, lots, awayBp, cid }) => [
    {
      kind: 'order',
      user,
      market,
      side,
      type: 'LIMIT',
      lots,
      offsetBp: side === 'BUY' ? -awayBp : awayBp,
      byQuote: false,
      reduceOnly: false,
      cid,
    },
  ]);

/** The account simulation's operations, with trading pairs and larger mark moves (up to +-25 %). */
const liquidationOpsArb: fc.Arbitrary<Op[]> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: opArb.map((op) => [op]) },
      { weight: 2, arbitrary: pairArb },
      { weight: 1, arbitrary: liquidityArb },
      {
        weight: 2,
        arbitrary: fc
          .record({
            kind: fc.constant('mark' as const),
            market,
            moveBp: fc.integer({ min: -2500, max: 2500 }),
          })
          .map((op) => [op]),
      },
    ),
    { minLength: 1, maxLength: 80, size: 'max' },
  )
  .map((groups) => groups.flat());

describe('liquidation under random trading, two risk partitions, the real book and ADL (property)', () => {
  it('solvency difference exactly 0 and long OI = short OI after every step; no wallet below zero after a liquidation', () => {
    const totals = newLiquidationStats();
    let partitionsUsed = 0;
    fc.assert(
      fc.property(initialDepositsArb, liquidationOpsArb, (deposits, ops) => {
        const sim = new LiquidationSimulation();
        deposits.forEach((cents, i) => sim.apply({ kind: 'deposit', user: i, cents }));
        for (const op of ops) {
          // apply() checks after each liquidation step; this is the check after the operation.
          sim.apply(op);
          sim.check();
        }
        expect(sim.violations).toEqual([]);
        for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += sim.liq[k];
        if (sim.partitions.every((p) => p.allAccounts().some((a) => a.positions().length > 0)))
          partitionsUsed++;
      }),
      { numRuns: 400 },
    );
    // The runs did liquidate (cross and isolated): against the book, by ADL, with the fund paying
    // bankrupt losses, across partitions, with funding rounds. No partial steps: these markets'
    // brackets only step down above 12M notional (README), which the runs do not reach.
    expect(totals.steps).toBeGreaterThan(80);
    expect(totals.isolatedSteps).toBeGreaterThan(0);
    expect(totals.bookFills).toBeGreaterThan(25);
    expect(totals.adlFills).toBeGreaterThan(80);
    expect(totals.fundingRounds).toBeGreaterThan(150);
    expect(partitionsUsed).toBeGreaterThan(200);
    expect(totals.payouts).toBeGreaterThan(30);
    expect(totals.crossPartitionFills).toBeGreaterThan(60);
  });
});
