import fc from 'fast-check';
import { initialDepositsArb, newSimulationStats, opArb, Simulation } from './__fixtures__/simulation';
import { CLEARING_ACCOUNT, FEE_ACCOUNT, INSURANCE_FUND } from './ledger';

describe('AccountBook under random trading (property)', () => {
  it('conserves money exactly, keeps OI balanced, never lets a new order overdraw, frees all margin', () => {
    const stats = newSimulationStats();
    fc.assert(
      fc.property(
        initialDepositsArb,
        fc.array(opArb, { minLength: 1, maxLength: 120, size: 'max' }),
        (deposits, ops) => {
          const sim = new Simulation(stats);
          deposits.forEach((cents, i) => sim.apply({ kind: 'deposit', user: i, cents }));
          for (const op of ops) {
            sim.apply(op);
            sim.check();
          }
          const f = stats.fills;
          sim.wind();
          stats.windFills += stats.fills - f;
          sim.check();
          const ledger = sim.book.ledger;
          for (const a of sim.book.allAccounts()) {
            expect(a.positions()).toEqual([]);
            expect(a.frozenMargin().isZero()).toBe(true);
          }
          // Flat: no PnL is owed, and wallets + fee account + insurance fund = deposits, exactly.
          expect(ledger.balance(CLEARING_ACCOUNT).isZero()).toBe(true);
          expect(
            ledger
              .walletTotal()
              .plus(ledger.balance(FEE_ACCOUNT))
              .plus(ledger.balance(INSURANCE_FUND))
              .eq(ledger.totalDeposits),
          ).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    // The runs did trade: fills, closes, accepted and margin-rejected orders all occurred.
    expect(stats.fills - stats.windFills).toBeGreaterThan(200);
    expect(stats.closes).toBeGreaterThan(200);
    expect(stats.accepted).toBeGreaterThan(1000);
    expect(stats.rejected.get('MARGIN_INSUFFICIENT') ?? 0).toBeGreaterThan(0);
    expect(stats.rejected.get('DUPLICATE_CLIENT_ORDER_ID') ?? 0).toBeGreaterThan(0);
    expect(stats.fundings).toBeGreaterThan(0);
  });
});
