import { BTC, FEE_TIERS, lookup } from '../account/__fixtures__/markets';
import { AccountBook } from '../account/account-book';
import { FEE_ACCOUNT, INSURANCE_FUND } from '../account/ledger';
import type { Side } from '../account/order';
import { Money } from '../money/money';
import { liquidationCharges, type LiquidatedFill } from './liquidation-charges';

const m = (v: string) => new Money(v);
const ALICE = '0x' + 'a'.repeat(40);
const BOB = '0x' + 'b'.repeat(40);

const fill = (f: Partial<LiquidatedFill>): LiquidatedFill => ({
  user: ALICE,
  symbol: 'BTCUSDT',
  asset: 'USDT',
  kind: 'LIQUIDATION',
  qty: m('1'),
  price: m('9100'),
  tradeId: 't1',
  time: 5,
  wallet: m('100'),
  left: m('100'),
  ...f,
});

describe('liquidation charges', () => {
  it('the clearance fee (1.25 % of 9100 = 113.75) is capped by what is left: 100, as INSURANCE_CLEAR', () => {
    const c = liquidationCharges(fill({}));
    expect(c.clearanceFee.toFixed()).toBe('100');
    expect(c.insurancePayout.toFixed()).toBe('0');
    expect(c.transfers).toEqual([
      { from: `wallet:${ALICE}`, to: INSURANCE_FUND, amount: m('100'), kind: 'INSURANCE_CLEAR', ref: 't1' },
    ]);
    expect(c.incomes).toEqual([
      {
        user: ALICE,
        symbol: 'BTCUSDT',
        incomeType: 'INSURANCE_CLEAR',
        income: m('-100'),
        asset: 'USDT',
        info: 'LIQUIDATION',
        time: 5,
        tranId: 't1',
        tradeId: 't1',
      },
    ]);
  });

  it('the whole fee when there is enough left', () => {
    expect(liquidationCharges(fill({ wallet: m('500'), left: m('400') })).clearanceFee.toFixed()).toBe(
      '113.75',
    );
  });

  it('a wallet below zero: no fee, the fund pays it back to zero (BANKRUPTCY_LOSS)', () => {
    const c = liquidationCharges(fill({ wallet: m('-10'), left: m('-10') }));
    expect(c.clearanceFee.toFixed()).toBe('0');
    expect(c.incomes).toEqual([]);
    expect(c.transfers).toEqual([
      { from: INSURANCE_FUND, to: `wallet:${ALICE}`, amount: m('10'), kind: 'BANKRUPTCY_LOSS', ref: 't1' },
    ]);
  });

  it('ADL: no fee, the deficit still paid', () => {
    expect(liquidationCharges(fill({ kind: 'ADL' })).transfers).toEqual([]);
    expect(
      liquidationCharges(
        fill({ kind: 'ADL', wallet: m('-0.05'), left: m('-0.05') }),
      ).insurancePayout.toFixed(),
    ).toBe('0.05');
  });

  it('cross, a wallet below zero that a position in profit still covers: no fee, no payout', () => {
    const c = liquidationCharges(fill({ wallet: m('-500'), left: m('0') }));
    expect([c.clearanceFee.toFixed(), c.insurancePayout.toFixed(), c.transfers]).toEqual(['0', '0', []]);
  });

  it('isolated: a closed part that lost more than its own margin is paid back, whatever the wallet', () => {
    const c = liquidationCharges(fill({ wallet: m('900'), left: m('-5') }));
    expect([c.clearanceFee.toFixed(), c.insurancePayout.toFixed()]).toEqual(['0', '5']);
  });
});

describe('AccountBook.settleForcedFill', () => {
  function book() {
    const b = new AccountBook({ markets: lookup(BTC), feeTiers: FEE_TIERS });
    b.deposit(ALICE, m('1000'), 'd1');
    b.deposit(BOB, m('100000'), 'd2');
    let n = 0;
    const trade = (_maker: string, _taker: string, _takerSide: Side, qty: string, price: string) => ({
      common: { symbol: 'BTCUSDT', qty: m(qty), price: m(price), tradeId: `t${++n}`, time: 0 },
    });
    return { b, trade };
  }

  it('a liquidation closing at 9100: PnL, fee capped to what is left, the maker pays its own fee', () => {
    const { b, trade } = book();
    const open = trade(BOB, ALICE, 'BUY', '1', '10000');
    b.settleFill({ ...open.common, user: BOB, side: 'SELL', liquidity: 'MAKER', closeQty: m('0') });
    b.settleFill({
      ...open.common,
      user: ALICE,
      side: 'BUY',
      liquidity: 'TAKER',
      closeQty: m('0'),
      feeExempt: true,
    });
    expect(b.holders('BTCUSDT')).toEqual([ALICE, BOB]);
    b.setMarkPrice('BTCUSDT', m('9100'));
    const before = b.ledger.balance(FEE_ACCOUNT);
    const liq = trade(BOB, ALICE, 'SELL', '1', '9100');
    b.settleFill({ ...liq.common, user: BOB, side: 'BUY', liquidity: 'MAKER', closeQty: m('1') });
    const r = b.settleForcedFill(
      { ...liq.common, user: ALICE, side: 'SELL', liquidity: 'TAKER', closeQty: m('1') },
      'LIQUIDATION',
      true,
    );
    expect(r.commission.toFixed()).toBe('0');
    expect(r.realizedPnl.toFixed()).toBe('-900');
    expect(r.clearanceFee.toFixed()).toBe('100');
    expect(r.incomes.map((i) => [i.incomeType, i.income.toFixed()])).toEqual([
      ['REALIZED_PNL', '-900'],
      ['INSURANCE_CLEAR', '-100'],
    ]);
    expect(b.account(ALICE).walletBalance.toFixed()).toBe('0');
    expect(b.ledger.balance(INSURANCE_FUND).toFixed()).toBe('100');
    // BOB's maker fee on the close: 9100 x 0.02 %
    expect(b.ledger.balance(FEE_ACCOUNT).minus(before).toFixed()).toBe('1.82');
    expect(b.ledger.total().eq(b.ledger.totalDeposits)).toBe(true);
    expect(b.holders('BTCUSDT')).toEqual([]);
  });

  it('a close beyond bankruptcy: the fund pays the wallet back to zero', () => {
    const { b, trade } = book();
    const open = trade(BOB, ALICE, 'BUY', '1', '10000');
    b.settleFill({ ...open.common, user: BOB, side: 'SELL', liquidity: 'MAKER', closeQty: m('0') });
    b.settleFill({
      ...open.common,
      user: ALICE,
      side: 'BUY',
      liquidity: 'TAKER',
      closeQty: m('0'),
      feeExempt: true,
    });
    b.setMarkPrice('BTCUSDT', m('8990'));
    const liq = trade(BOB, ALICE, 'SELL', '1', '8990');
    const r = b.settleForcedFill(
      { ...liq.common, user: ALICE, side: 'SELL', liquidity: 'TAKER', closeQty: m('1') },
      'LIQUIDATION',
      true,
    );
    expect([r.clearanceFee.toFixed(), r.insurancePayout.toFixed()]).toEqual(['0', '10']);
    expect(b.account(ALICE).walletBalance.toFixed()).toBe('0');
    expect(b.ledger.balance(INSURANCE_FUND).toFixed()).toBe('-10');
  });

  it('the counterparty of an ADL fill is fee-exempt and not charged', () => {
    const { b, trade } = book();
    const open = trade(BOB, ALICE, 'BUY', '1', '10000');
    b.settleFill({
      ...open.common,
      user: BOB,
      side: 'SELL',
      liquidity: 'MAKER',
      closeQty: m('0'),
      feeExempt: true,
    });
    const adl = trade(BOB, ALICE, 'SELL', '1', '9000');
    const r = b.settleForcedFill(
      { ...adl.common, user: BOB, side: 'BUY', liquidity: 'MAKER', closeQty: m('1') },
      'ADL',
      false,
    );
    expect([r.commission.toFixed(), r.clearanceFee.toFixed(), r.realizedPnl.toFixed()]).toEqual([
      '0',
      '0',
      '1000',
    ]);
  });
});
