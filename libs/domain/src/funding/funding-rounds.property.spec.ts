import fc from 'fast-check';
import { AccountBook } from '../account/account-book';
import { BTC, FEE_TIERS, lookup } from '../account/__fixtures__/markets';
import { FEE_ACCOUNT, INSURANCE_FUND } from '../account/ledger';
import { Money } from '../money/money';
import { fundingRound } from './funding-payment';

const m = (v: string | number) => new Money(v);
const DUST_UNIT = m('0.00000001');

/** Pairs of users opening opposite positions (no user twice, so every fill opens), spread over shards. */
const scenarioArb = fc.record({
  shards: fc.integer({ min: 1, max: 4 }),
  pairs: fc.array(
    fc.record({
      lots: fc.integer({ min: 1, max: 5_000 }), // × 0.001 BTC
      ticks: fc.integer({ min: 100_000, max: 900_000 }), // × 0.1 USDT
    }),
    { minLength: 1, maxLength: 12 },
  ),
  rounds: fc.array(
    fc.record({
      markTicks: fc.integer({ min: 100_000, max: 900_000 }),
      // Rates of 8 decimals within ±0.02 (the cap), zero included.
      rate: fc.integer({ min: -2_000_000, max: 2_000_000 }),
    }),
    { minLength: 1, maxLength: 40 },
  ),
});

describe('funding rounds over risk shards (property)', () => {
  it('each round sums to zero up to dust the insurance accounts keep; wallets + fees + insurance = deposits', () => {
    fc.assert(
      fc.property(scenarioArb, ({ shards, pairs, rounds }) => {
        const books = Array.from(
          { length: shards },
          () => new AccountBook({ markets: lookup(BTC), feeTiers: FEE_TIERS }),
        );
        const users: string[] = [];
        const shardOf = (i: number) => books[i % shards]!;
        pairs.forEach(({ lots, ticks }, k) => {
          const price = m(ticks).div(10);
          const qty = m(lots).div(1000);
          for (const [n, side] of [
            [2 * k, 'BUY'],
            [2 * k + 1, 'SELL'],
          ] as const) {
            const user = `0x${n.toString(16).padStart(40, '0')}`;
            users.push(user);
            const book = shardOf(n);
            book.deposit(user, m(1_000_000), `dep-${n}`);
            book.settleFill({
              user,
              symbol: BTC.symbol,
              side,
              price,
              qty,
              liquidity: side === 'BUY' ? 'TAKER' : 'MAKER',
              closeQty: m(0),
              tradeId: `t-${k}`,
              time: 0,
            });
          }
        });
        const insurance = () => books.reduce((s, b) => s.plus(b.ledger.balance(INSURANCE_FUND)), m(0));
        rounds.forEach(({ markTicks, rate: r }, i) => {
          const mark = m(markTicks).div(10);
          const rate = m(r).div(100_000_000);
          const before = insurance();
          let paid = m(0);
          const positions: { size: Money }[] = [];
          users.forEach((user, n) => {
            const book = shardOf(n);
            positions.push({ size: book.account(user).position(BTC.symbol)!.size });
            const { income } = book.applyFunding(user, BTC.symbol, rate, mark, i, `funding/${i}`);
            paid = paid.plus(income?.income ?? 0);
          });
          const dust = insurance().minus(before);
          // Σ payments + dust = 0 exactly; 0 ≤ dust < one unit of 10⁻⁸ per position.
          expect(paid.plus(dust).isZero()).toBe(true);
          expect(dust.gte(0) && dust.lt(DUST_UNIT.times(users.length))).toBe(true);
          // The shards together pay what one funding round over the whole market computes.
          expect(fundingRound(positions, mark, rate).dust.eq(dust)).toBe(true);
        });
        for (const book of books) {
          const l = book.ledger;
          expect(
            l.walletTotal().plus(l.balance(FEE_ACCOUNT)).plus(l.balance(INSURANCE_FUND)).eq(l.totalDeposits),
          ).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
