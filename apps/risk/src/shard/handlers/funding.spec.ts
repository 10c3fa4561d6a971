import { INSURANCE_FUND } from '@perp/domain';
import { RiskPartition } from '../risk-partition';
import { ALICE, BOB, bookFill, chain, cmd, deposit, riskHarness, T0 } from './__fixtures__/risk-context';

const FUNDING_TIME = T0 + 60_000;
const round = (fundingRate: string, fundingTime = FUNDING_TIME, symbol = 'BTCUSDT') => ({
  ...cmd({ type: 'funding.settle', symbol, fundingRate, markPrice: '60500', fundingTime }, fundingTime),
  id: `funding/${symbol}/${fundingTime}`,
});

/** ALICE long 0.01 and BOB short 0.01 BTCUSDT at 60000 (maker fee 0.12 each), 1000 deposited each. */
function opposite() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(deposit(BOB, '1000'));
  bookFill(h, ALICE, 'BUY', '0.01', 1);
  bookFill(h, BOB, 'SELL', '0.01', 2);
  return h;
}

describe('funding.settle handler', () => {
  it('a positive rate: the long pays size × mark × rate, the short receives it, as FUNDING_FEE', () => {
    const h = opposite();
    const out = h.run(round('0.0001'));
    // 0.01 × 60500 × 0.0001 = 0.0605
    const fee = (user: string, income: string) => ({
      type: 'income',
      user,
      symbol: 'BTCUSDT',
      incomeType: 'FUNDING_FEE',
      income,
      asset: 'USDT',
      tradeId: `funding/BTCUSDT/${FUNDING_TIME}`,
      info: '0.0001',
    });
    expect(out.accountEvents).toEqual([
      fee(ALICE, '-0.0605'),
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '999.8195', frozen: '0' },
      fee(BOB, '0.0605'),
      { type: 'balance', user: BOB, asset: 'USDT', walletBalance: '999.9405', frozen: '0' },
    ]);
    expect([...out.users].sort()).toEqual([ALICE, BOB]);
    expect(h.book.ledger.balance(INSURANCE_FUND).toFixed()).toBe('0');
  });

  it('rounds toward −∞ at 8 decimals: the payer pays the dust and the insurance account keeps it', () => {
    const h = opposite();
    // 0.01 × 60500 × 0.000000123 = 0.0000744150 → long −0.00007442, short +0.00007441
    const out = h.run(round('0.000000123'));
    expect(
      out.accountEvents.filter((e) => e.type === 'income').map((e) => e.type === 'income' && e.income),
    ).toEqual(['-0.00007442', '0.00007441']);
    expect(h.book.ledger.balance(INSURANCE_FUND).toFixed()).toBe('0.00000001');
  });

  it('exactly once: a copy of a round at or before the last applied for the symbol changes nothing', () => {
    const h = opposite();
    h.run(round('0.0001'));
    expect(h.run(round('0.0001')).accountEvents).toEqual([]);
    expect(h.run(round('0.0001', FUNDING_TIME - 60_000)).accountEvents).toEqual([]);
    expect(h.book.account(ALICE).walletBalance.toFixed()).toBe('999.8195');
    // Kept in the snapshot: a restored partition drops the copy too.
    const restored = RiskPartition.deserialize(0, h.p.serialize(), h.markets, {
      feeTiers: chain.feeTiers,
      asset: chain.settlementAsset,
    });
    expect(restored.fundingTimes.get('BTCUSDT')).toBe(FUNDING_TIME);
    // The next round and another symbol's round apply.
    expect(h.run(round('-0.0001', FUNDING_TIME + 60_000)).accountEvents).toHaveLength(4);
    expect(h.run(round('0.0001', FUNDING_TIME, 'ETHUSDT')).accountEvents).toEqual([]);
  });

  it('no position, a zero rate or a payment that rounds to zero: no income', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '1000'));
    expect(h.run(round('0.0001')).accountEvents).toEqual([]);
    const o = opposite();
    expect(o.run(round('0')).accountEvents).toEqual([]);
  });
});

describe('funding dust', () => {
  it('what a funding round leaves in the insurance share is an insurance event', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '1000'));
    bookFill(h, ALICE, 'BUY', '0.01', 1);
    const out = h.run({
      id: 'funding/BTCUSDT/1',
      v: 1,
      time: T0,
      type: 'funding.settle',
      symbol: 'BTCUSDT',
      fundingRate: '0.0001',
      markPrice: '60000',
      fundingTime: T0 + 1,
    });
    expect(out.accountEvents[out.accountEvents.length - 1]).toEqual({
      type: 'insurance',
      partition: 0,
      symbol: 'BTCUSDT',
      kind: 'FUNDING_DUST',
      amount: '0.06',
      balance: '0.06',
      ref: 'funding/BTCUSDT/1',
    });
  });
});
