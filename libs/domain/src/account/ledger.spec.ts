import { Money } from '../money/money';
import { CLEARING_ACCOUNT, FEE_ACCOUNT, Ledger, walletOf } from './ledger';

const m = (v: string) => new Money(v);

describe('Ledger', () => {
  it('moves money between accounts and keeps the total equal to the deposits', () => {
    const l = new Ledger();
    l.post({ from: undefined, to: walletOf('a'), amount: m('100'), kind: 'DEPOSIT', ref: 'd1' });
    l.post({ from: walletOf('a'), to: FEE_ACCOUNT, amount: m('0.5'), kind: 'COMMISSION', ref: 't1' });
    l.post({ from: CLEARING_ACCOUNT, to: walletOf('a'), amount: m('7'), kind: 'REALIZED_PNL', ref: 't1' });
    expect(l.balance(walletOf('a')).toFixed()).toBe('106.5');
    expect(l.balance(CLEARING_ACCOUNT).toFixed()).toBe('-7');
    expect(l.balance(FEE_ACCOUNT).toFixed()).toBe('0.5');
    expect(l.walletTotal().toFixed()).toBe('106.5');
    expect(l.total().toFixed()).toBe('100');
    expect(l.totalDeposits.toFixed()).toBe('100');
  });

  it('refuses negative amounts and sourceless transfers that are not deposits', () => {
    const l = new Ledger();
    expect(() =>
      l.post({ from: FEE_ACCOUNT, to: walletOf('a'), amount: m('-1'), kind: 'COMMISSION', ref: 'x' }),
    ).toThrow();
    expect(() =>
      l.post({ from: undefined, to: walletOf('a'), amount: m('1'), kind: 'REALIZED_PNL', ref: 'x' }),
    ).toThrow();
    l.post({ from: FEE_ACCOUNT, to: walletOf('a'), amount: m('0'), kind: 'COMMISSION', ref: 'x' });
    expect(l.entries()).toEqual([]);
  });
});
