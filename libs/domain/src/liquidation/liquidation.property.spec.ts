import fc from 'fast-check';
import { CLEARING_ACCOUNT, FEE_ACCOUNT, INSURANCE_FUND } from '../account/ledger';
import {
  initialDepositsArb,
  MARKETS,
  newSimulationStats,
  opArb,
  USERS,
  type Op,
} from '../account/__fixtures__/simulation';
import type { Side } from '../account/order';
import { LiquidationSimulation } from './__fixtures__/liquidation-simulation';

const user = fc.integer({ min: 0, max: USERS.length - 1 });
const market = fc.integer({ min: 0, max: MARKETS.length - 1 });

/** Two users trading at the mark: a resting LIMIT and a crossing MARKET (positions open often). */
const pairArb: fc.Arbitrary<Op[]> = fc
  .record({
    maker: user,
    taker: user,
    market,
    side: fc.constantFrom<Side>('BUY', 'SELL'),
    lots: fc.integer({ min: 1, max: 3000 }),
    cid: fc.integer({ min: 1000, max: 1_000_000_000 }),
  })
  .map(({ maker, taker, market, side, lots, cid }) => {
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

/** The account simulation's operations, with trading pairs and larger mark moves (up to +-25 %). */
const liquidationOpsArb: fc.Arbitrary<Op[]> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: opArb.map((op) => [op]) },
      { weight: 2, arbitrary: pairArb },
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

describe('liquidation under random trading (property)', () => {
  it('keeps the ledger balanced and long = short, and leaves no liquidated account below zero', () => {
    const stats = newSimulationStats();
    const totals = { steps: 0, partialSteps: 0, bookFills: 0, adlFills: 0 };
    fc.assert(
      fc.property(initialDepositsArb, liquidationOpsArb, (deposits, ops) => {
        const sim = new LiquidationSimulation(stats);
        deposits.forEach((cents, i) => sim.apply({ kind: 'deposit', user: i, cents }));
        for (const op of ops) {
          sim.apply(op);
          // conservation, clearing = unrealized PnL, long OI = short OI, risk = engine sizes
          sim.check();
        }
        expect(sim.violations).toEqual([]);
        for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += sim.liq[k];
        sim.wind();
        sim.check();
        const ledger = sim.book.ledger;
        expect(ledger.balance(CLEARING_ACCOUNT).isZero()).toBe(true);
        expect(
          ledger
            .walletTotal()
            .plus(ledger.balance(FEE_ACCOUNT))
            .plus(ledger.balance(INSURANCE_FUND))
            .eq(ledger.totalDeposits),
        ).toBe(true);
      }),
      { numRuns: 200 },
    );
    // The runs did liquidate: against the book, by ADL, and in partial steps.
    expect(totals.steps).toBeGreaterThan(50);
    expect(totals.bookFills).toBeGreaterThan(10);
    expect(totals.adlFills).toBeGreaterThan(10);
  });
});
