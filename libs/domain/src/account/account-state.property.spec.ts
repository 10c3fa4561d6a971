import fc from 'fast-check';
import { moneyJson } from './__fixtures__/money-json';
import {
  BOOK_OPTIONS,
  initialDepositsArb,
  newSimulationStats,
  opArb,
  Simulation,
  USERS,
  type Op,
} from './__fixtures__/simulation';
import { Account } from './account';
import { AccountBook } from './account-book';

const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The simulation with a second book restored from a JSON snapshot of the first: from then on the
 * engine drives both, and each call must answer the same in both.
 */
class SnapshotSimulation extends Simulation {
  restored: AccountBook | undefined;
  calls = 0;

  snapshot(): void {
    const state = this.book.toState();
    this.restored = AccountBook.fromState(viaJson(state), BOOK_OPTIONS);
    expect(this.restored.toState()).toEqual(state);
  }

  protected override risk<T>(call: (book: AccountBook) => T): T {
    // Serialised at once: a result can share objects (an order) that later calls mutate.
    const original = call(this.book);
    if (!this.restored) return original;
    const expected = moneyJson(original);
    const actual = moneyJson(call(this.restored));
    this.calls++;
    // A plain throw, not expect(): it runs on every call and fast-check reports the sequence.
    if (actual !== expected) throw new Error(`restored book answered ${actual}, original ${expected}`);
    return original;
  }
}

describe('AccountBook snapshot and restore under random trading (property)', () => {
  it('a book restored from a JSON snapshot continues exactly as the original', () => {
    const stats = newSimulationStats();
    let compared = 0;
    let restoredPositions = 0;
    let restoredOrders = 0;
    fc.assert(
      fc.property(
        initialDepositsArb,
        fc.array(opArb, { minLength: 1, maxLength: 120, size: 'max' }),
        fc.nat(),
        (deposits, ops: Op[], cut) => {
          const sim = new SnapshotSimulation(stats);
          deposits.forEach((cents, i) => sim.apply({ kind: 'deposit', user: i, cents }));
          const at = cut % (ops.length + 1); // ops.length: after every op, before the wind-down
          ops.forEach((op, i) => {
            if (i === at) sim.snapshot();
            sim.apply(op);
          });
          if (at === ops.length) sim.snapshot();
          const restored = sim.restored!;
          restoredPositions += restored.allAccounts().reduce((n, a) => n + a.positions().length, 0);
          restoredOrders += restored.allAccounts().reduce((n, a) => n + a.openOrders().length, 0);
          sim.check(restored);
          sim.wind();
          sim.check(restored);

          const state = sim.book.toState();
          expect(restored.toState()).toEqual(state);
          for (const u of USERS) {
            expect(moneyJson(restored.balances(u))).toBe(moneyJson(sim.book.balances(u)));
            expect(moneyJson(restored.positions(u))).toBe(moneyJson(sim.book.positions(u)));
          }
          // The final state round-trips too, the whole book and each account alone.
          expect(AccountBook.fromState(viaJson(state), BOOK_OPTIONS).toState()).toEqual(state);
          for (const a of state.accounts) expect(Account.fromState(viaJson(a)).toState()).toEqual(a);
          compared += sim.calls;
        },
      ),
      { numRuns: 200 },
    );
    // The snapshots caught books mid-trade, and the books were compared on many calls after them.
    expect(restoredPositions).toBeGreaterThan(100);
    expect(restoredOrders).toBeGreaterThan(100);
    expect(compared).toBeGreaterThan(5000);
    expect(stats.fills).toBeGreaterThan(1000);
  });
});
