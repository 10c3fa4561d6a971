import fc from 'fast-check';
import { Money } from '../money/money';
import { BTC, FEE_TIERS, lookup } from './__fixtures__/markets';
import { initialDepositsArb, opArb, Simulation, USERS } from './__fixtures__/simulation';
import { AccountBook } from './account-book';
import { BookTotals, solvency } from './solvency';

const m = (v: string) => new Money(v);
const options = { markets: lookup(BTC), feeTiers: FEE_TIERS };

/** One side of a BTC fill into `book` (the engine's open/close split given). */
function settle(
  book: AccountBook,
  user: string,
  side: 'BUY' | 'SELL',
  qty: string,
  price: string,
  closeQty = '0',
) {
  book.settleFill({
    user,
    symbol: 'BTCUSDT',
    side,
    qty: m(qty),
    price: m(price),
    liquidity: side === 'BUY' ? 'TAKER' : 'MAKER',
    closeQty: m(closeQty),
    tradeId: `t-${user}-${side}-${qty}-${price}`,
    time: 1,
  });
}

describe('BookTotals and solvency', () => {
  it('two partitions: exact zero when both sides of every fill are settled, unsettled in between', () => {
    const p0 = new AccountBook(options);
    const p1 = new AccountBook(options);
    p0.deposit('alice', m('10000'), 'd1');
    p1.deposit('bob', m('10000'), 'd2');
    const t0 = BookTotals.of(p0);
    const t1 = BookTotals.of(p1);
    // Alice buys 0.003 from Bob at 50000.1, then sells 0.001 back at 50123.7 (a third of the cost
    // released: 50.0001 rounded half-even; the rest stays exact in the position's cost).
    settle(p0, 'alice', 'BUY', '0.003', '50000.1');
    t0.refresh(p0, ['alice']);
    const mark = () => m('49876.5');
    const half = solvency([t0.totals(p0), t1.totals(p1)], mark);
    expect(half.unsettled).toEqual(['BTCUSDT']);
    expect(half.difference.isZero()).toBe(false);
    settle(p1, 'bob', 'SELL', '0.003', '50000.1');
    settle(p0, 'alice', 'SELL', '0.001', '50123.7', '0.001');
    settle(p1, 'bob', 'BUY', '0.001', '50123.7', '0.001');
    t0.refresh(p0, ['alice']);
    t1.refresh(p1, ['bob']);
    const report = solvency([t0.totals(p0), t1.totals(p1)], mark);
    expect(report.unsettled).toEqual([]);
    expect(report.difference.toFixed()).toBe('0');
    expect(report.deposits.toFixed()).toBe('20000');
    // The open positions' PnL at the mark is exactly what the two clearing accounts hold.
    expect(report.openPositionPnl.toFixed()).toBe(
      t0.totals(p0).clearing.plus(t1.totals(p1).clearing).toFixed(),
    );
    expect(report.fees.gt(0)).toBe(true);
    // The incremental totals are what a full recount gives.
    expect(t0.totals(p0)).toEqual(BookTotals.of(p0).totals(p0));
  });

  it('a user the book no longer has counts nothing; a flat partition reports no positions', () => {
    const book = new AccountBook(options);
    book.deposit('carol', m('5'), 'd');
    const t = BookTotals.of(book);
    t.refresh(book, ['nobody']);
    const totals = t.totals(book);
    expect([totals.deposits.toFixed(), totals.wallets.toFixed(), totals.positions.size]).toEqual([
      '5',
      '5',
      0,
    ]);
  });

  it('random trading, funding and marks: difference exactly 0 after every step (property)', () => {
    fc.assert(
      fc.property(initialDepositsArb, fc.array(opArb, { minLength: 1, maxLength: 60 }), (deposits, ops) => {
        const sim = new Simulation();
        deposits.forEach((cents, i) => sim.apply({ kind: 'deposit', user: i, cents }));
        const totals = BookTotals.of(sim.book);
        for (const op of ops) {
          sim.apply(op);
          totals.refresh(sim.book, USERS);
          const r = solvency([totals.totals(sim.book)], sim.book.markPrices);
          expect(r.unsettled).toEqual([]);
          expect(r.difference.toFixed()).toBe('0');
          expect(r.openPositionPnl.eq(sim.book.ledger.balance('CLEARING'))).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });
});
