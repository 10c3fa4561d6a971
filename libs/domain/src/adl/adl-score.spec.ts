import { Money } from '../money/money';
import type { AccountBalances, PositionView } from '../account/account';
import { adlScore, positionAdlScore } from './adl-score';

const m = (v: string | number) => new Money(v);

describe('adlScore (Binance LeveragePnl)', () => {
  it('is PnL / max(1, wallet) x margin ratio for a profitable position', () => {
    // 40.2 / 4.27 = 9.414519906323185011 (18 dp, down), x 0.1342
    expect(
      adlScore({ unrealizedPnl: m('40.2'), wallet: m('4.27'), marginRatio: m('0.1342') }).toFixed(),
    ).toBe(m('40.2').div('4.27').times('0.1342').decimalPlaces(18, Money.ROUND_DOWN).toFixed());
    expect(adlScore({ unrealizedPnl: m(100), wallet: m(1000), marginRatio: m('0.05') }).toFixed()).toBe(
      '0.005',
    );
  });

  it('divides by at least 1 (a wallet under 1 does not inflate the ratio)', () => {
    expect(adlScore({ unrealizedPnl: m(3), wallet: m('0.2'), marginRatio: m('0.5') }).toFixed()).toBe('1.5');
    expect(adlScore({ unrealizedPnl: m(3), wallet: m(-5), marginRatio: m('0.5') }).toFixed()).toBe('1.5');
  });

  it('ranks more leverage (higher margin ratio) and more profit first', () => {
    const low = adlScore({ unrealizedPnl: m(100), wallet: m(1000), marginRatio: m('0.01') });
    const high = adlScore({ unrealizedPnl: m(100), wallet: m(1000), marginRatio: m('0.2') });
    const rich = adlScore({ unrealizedPnl: m(500), wallet: m(1000), marginRatio: m('0.01') });
    expect(high.gt(low)).toBe(true);
    expect(rich.gt(low)).toBe(true);
  });

  it('is 0 for a profitable position whose margin balance is <= 0 (margin ratio taken as 0)', () => {
    expect(adlScore({ unrealizedPnl: m(5), wallet: m(-10), marginRatio: m(Infinity) }).toFixed()).toBe('0');
  });

  it('is negative for a losing position: PnL percent / margin ratio, less leverage further back', () => {
    const lev = adlScore({ unrealizedPnl: m(-100), wallet: m(1000), marginRatio: m('0.5') });
    const safe = adlScore({ unrealizedPnl: m(-100), wallet: m(1000), marginRatio: m('0.05') });
    expect(lev.toFixed()).toBe('-0.2');
    expect(safe.toFixed()).toBe('-2');
    expect(lev.gt(safe)).toBe(true);
  });

  it('is 0 for no PnL and for a loser with no positive margin balance', () => {
    expect(adlScore({ unrealizedPnl: m(0), wallet: m(10), marginRatio: m('0.1') }).toFixed()).toBe('0');
    expect(adlScore({ unrealizedPnl: m(-20), wallet: m(10), marginRatio: m(Infinity) }).toFixed()).toBe('0');
  });

  it('rounds toward zero at 18 decimals', () => {
    expect(adlScore({ unrealizedPnl: m(1), wallet: m(3), marginRatio: m(1) }).toFixed()).toBe(
      '0.333333333333333333',
    );
    expect(adlScore({ unrealizedPnl: m(-1), wallet: m(3), marginRatio: m(1) }).toFixed()).toBe(
      '-0.333333333333333333',
    );
  });
});

describe('positionAdlScore', () => {
  const balances = {
    walletBalance: m(1000),
    isolatedMargin: m(200),
    marginRatio: m('0.1'),
  } as AccountBalances;

  it('backs a cross position by the cross wallet (wallet minus isolated margins)', () => {
    const view = {
      marginType: 'cross',
      unrealizedPnl: m(80),
      isolatedMargin: m(0),
      marginRatio: m('0.1'),
    } as PositionView;
    // 80 / 800 x 0.1
    expect(positionAdlScore(view, balances).toFixed()).toBe('0.01');
  });

  it('backs an isolated position by its own wallet and ratio', () => {
    const view = {
      marginType: 'isolated',
      unrealizedPnl: m(50),
      isolatedMargin: m(100),
      marginRatio: m('0.2'),
    } as PositionView;
    expect(positionAdlScore(view, balances).toFixed()).toBe('0.1');
  });
});
