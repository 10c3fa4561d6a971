import { BTC, ETH, FEE_TIERS, lookup } from '../account/__fixtures__/markets';
import { AccountBook } from '../account/account-book';
import type { Side } from '../account/order';
import { parseMarket, type Market } from '../markets/market';
import { Money } from '../money/money';
import {
  isLiquidatable,
  isMarginCall,
  liquidationStep,
  marginStates,
  planLiquidation,
  type MarginState,
} from './liquidation-risk';

const m = (v: string) => new Money(v);
const USER = '0x' + '1'.repeat(40);

/** Brackets above the 1.25 % fee rate: 2 % to 10,000, 4 % to 20,000, 10 % to 100,000 (cum 200, 1400). */
const STEEP: Market = parseMarket({
  symbol: 'STEEPUSDT',
  baseAsset: 'STEEP',
  quoteAsset: 'USDT',
  tickSize: '0.01',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '1000000',
  maxLeverage: 50,
  defaultLeverage: 10,
  maxLongOi: '1000000',
  maxShortOi: '1000000',
  rank: 9,
  sortOrder: 9,
  maintenanceBrackets: [
    { notionalCap: '10000', maintMarginRatio: '0.02', maxLeverage: 50 },
    { notionalCap: '20000', maintMarginRatio: '0.04', maxLeverage: 25 },
    { notionalCap: '100000', maintMarginRatio: '0.1', maxLeverage: 10 },
  ],
});

function bookWith(deposit: string, mode: 'CROSS' | 'ISOLATED' = 'CROSS') {
  const book = new AccountBook({ markets: lookup(BTC, ETH, STEEP), feeTiers: FEE_TIERS });
  book.deposit(USER, m(deposit), 'dep');
  expect(book.setMarginMode(USER, mode).ok).toBe(true);
  let n = 0;
  const open = (symbol: string, side: Side, qty: string, price: string) =>
    book.settleFill({
      user: USER,
      symbol,
      side,
      qty: m(qty),
      price: m(price),
      liquidity: 'MAKER',
      closeQty: m('0'),
      tradeId: `t${++n}`,
      time: 0,
      feeExempt: true,
    });
  const states = (): MarginState[] =>
    marginStates(book.account(USER), book.markPrices, lookup(BTC, ETH, STEEP));
  const plan = (state: MarginState, insurance = '0') =>
    planLiquidation(book.account(USER), state, book.markPrices, lookup(BTC, ETH, STEEP), m(insurance));
  return { book, open, states, plan };
}

describe('liquidation trigger, cross', () => {
  // 1 BTC long at 10000 on 1000: margin balance 1000 + (mark - 10000), maintenance mark x 0.4 %
  it.each([
    ['9100', false, '100', '36.4'],
    ['9036.2', false, '36.2', '36.1448'],
    ['9036.1', true, '36.1', '36.1444'], // liquidation price 9036.14...
    ['9000', true, '0', '36'],
    ['8900', true, '-100', '35.6'],
  ])('mark %s: liquidatable %s (margin balance %s, maintenance %s)', (mark, liq, balance, mm) => {
    const { book, open, states } = bookWith('1000');
    open('BTCUSDT', 'BUY', '1', '10000');
    book.setMarkPrice('BTCUSDT', m(mark));
    const [s] = states();
    expect(s.marginMode).toBe('CROSS');
    expect(s.symbol).toBeUndefined();
    expect(s.marginBalance.toFixed()).toBe(balance);
    expect(s.maintenance.toFixed()).toBe(mm);
    expect(isLiquidatable(s)).toBe(liq);
  });

  it('the second bracket: 2 BTC long at 30000 on 2240, mark 29000 (notional 58000, 0.5 % - 50)', () => {
    const { book, open, states } = bookWith('2240');
    open('BTCUSDT', 'BUY', '2', '30000');
    book.setMarkPrice('BTCUSDT', m('29000'));
    const [s] = states();
    // balance 240, maintenance 290 - 50 = 240: at the threshold liquidates
    expect([s.marginBalance.toFixed(), s.maintenance.toFixed(), isLiquidatable(s)]).toEqual([
      '240',
      '240',
      true,
    ]);
    book.setMarkPrice('BTCUSDT', m('29000.1'));
    expect(isLiquidatable(states()[0])).toBe(false);
  });

  it('the third bracket: 20 BTC short at 50000 (notional above 600,000: 0.65 % - 950)', () => {
    const { book, open, states } = bookWith('50000');
    open('BTCUSDT', 'SELL', '20', '50000');
    book.setMarkPrice('BTCUSDT', m('52208.2'));
    // balance 50000 - 44164 = 5836, maintenance 1044164 x 0.0065 - 950 = 5837.066
    const [s] = states();
    expect(s.maintenance.toFixed()).toBe('5837.066');
    expect(isLiquidatable(s)).toBe(true);
    book.setMarkPrice('BTCUSDT', m('52208.1'));
    expect(isLiquidatable(states()[0])).toBe(false);
  });

  it('no positions: no state; nothing to maintain never liquidates', () => {
    const { states } = bookWith('10');
    expect(states()).toEqual([]);
    expect(isLiquidatable({ marginMode: 'CROSS', marginBalance: m('-1'), maintenance: m('0') })).toBe(false);
  });

  it('margin call from a ratio of 80 %', () => {
    const { book, open, states } = bookWith('1000');
    open('BTCUSDT', 'BUY', '1', '10000');
    book.setMarkPrice('BTCUSDT', m('9045')); // 36.18 / 45 = 0.804
    expect(isMarginCall(states()[0])).toBe(true);
    expect(isLiquidatable(states()[0])).toBe(false);
    book.setMarkPrice('BTCUSDT', m('9050')); // 36.2 / 50 = 0.724
    expect(isMarginCall(states()[0])).toBe(false);
    book.setMarkPrice('BTCUSDT', m('8000')); // balance below zero: ratio Infinity
    expect(isMarginCall(states()[0])).toBe(true);
  });
});

describe('liquidation trigger, isolated', () => {
  // 1 BTC long at 10000, leverage 20: isolated wallet = margin 500
  it.each([
    ['9540', false],
    ['9538.2', false], // 38.2 vs 38.1528
    ['9538.1', true], // 38.1 vs 38.1524
    ['9500', true],
  ])('mark %s: liquidatable %s on its own margin, whatever the wallet', (mark, liq) => {
    const { book, open, states } = bookWith('100000', 'ISOLATED');
    open('BTCUSDT', 'BUY', '1', '10000');
    book.setMarkPrice('BTCUSDT', m(mark));
    const [s] = states();
    expect(s).toMatchObject({ marginMode: 'ISOLATED', symbol: 'BTCUSDT' });
    expect(isLiquidatable(s)).toBe(liq);
  });

  it('one state per position; added collateral backs it', () => {
    const { book, open, states } = bookWith('100000', 'ISOLATED');
    open('BTCUSDT', 'BUY', '1', '10000');
    open('ETHUSDT', 'SELL', '10', '1000');
    book.setMarkPrice('BTCUSDT', m('9530'));
    book.setMarkPrice('ETHUSDT', m('1000'));
    expect(states().map((s) => [s.symbol, isLiquidatable(s)])).toEqual([
      ['BTCUSDT', true],
      ['ETHUSDT', false],
    ]);
    expect(book.addCollateral(USER, 'BTCUSDT', m('100')).ok).toBe(true);
    expect(isLiquidatable(states()[0])).toBe(false);
  });
});

describe('liquidation plan', () => {
  it('cross, one position: close all at the bankruptcy price', () => {
    const { book, open, states, plan } = bookWith('1000');
    open('BTCUSDT', 'BUY', '1', '10000');
    book.setMarkPrice('BTCUSDT', m('9030'));
    const p = plan(states()[0])!;
    expect(p.symbol).toBe('BTCUSDT');
    expect(p.side).toBe('SELL');
    expect(p.marginMode).toBe('CROSS');
    expect([p.quantity, p.bankruptcyPrice, p.limitPrice, p.markPrice].map((x) => x.toFixed())).toEqual([
      '1',
      '9000',
      '9000',
      '9030',
    ]);
  });

  it('cross, the largest maintenance first; its bankruptcy price counts the other at its mark', () => {
    const { book, open, states, plan } = bookWith('2000');
    open('BTCUSDT', 'BUY', '1', '10000');
    open('ETHUSDT', 'SELL', '10', '1000');
    book.setMarkPrice('BTCUSDT', m('9000')); // PnL -1000, maintenance 36
    book.setMarkPrice('ETHUSDT', m('1099')); // PnL -990, maintenance 54.95
    const [s] = states();
    expect(isLiquidatable(s)).toBe(true);
    const p = plan(s)!;
    // backing = 2000 - 1000 (BTC at its mark) = 1000: (10000 + 1000) / 10
    expect([p.symbol, p.side, p.quantity.toFixed(), p.bankruptcyPrice.toFixed()]).toEqual([
      'ETHUSDT',
      'BUY',
      '10',
      '1100',
    ]);
  });

  it('isolated: the state position on its own margin; the insurance share moves the limit', () => {
    const { book, open, states, plan } = bookWith('100000', 'ISOLATED');
    open('BTCUSDT', 'BUY', '1', '10000');
    book.setMarkPrice('BTCUSDT', m('9530'));
    const p = plan(states()[0], '25')!;
    expect([p.marginMode, p.bankruptcyPrice.toFixed(), p.limitPrice.toFixed()]).toEqual([
      'ISOLATED',
      '9500',
      '9475',
    ]);
  });

  it('a short bankruptcy above the mark', () => {
    const { book, open, states, plan } = bookWith('1000');
    open('BTCUSDT', 'SELL', '1', '10000');
    book.setMarkPrice('BTCUSDT', m('10970'));
    const p = plan(states()[0])!;
    expect([p.side, p.bankruptcyPrice.toFixed()]).toEqual(['BUY', '11000']);
  });
});

describe('partial steps', () => {
  const position = (size: string, cost: string) => ({
    id: 'p',
    symbol: 'STEEPUSDT',
    size: m(size),
    cost: m(cost),
    margin: m('0'),
    collateral: m('0'),
    leverage: 10,
    openedAt: 0,
  });

  it('first bracket: the whole position', () => {
    expect(liquidationStep(STEEP, position('5', '5000'), m('1000'), m('50'), m('100')).toFixed()).toBe('5');
  });

  it('second bracket: just enough to reach the first when the account is then above maintenance', () => {
    // 20 at 1000: maintenance 20000 x 4 % - 200 = 600; balance 550. Close 10: maintenance 200, fee 125
    expect(liquidationStep(STEEP, position('20', '20000'), m('1000'), m('550'), m('600')).toFixed()).toBe(
      '10',
    );
  });

  it('the fewest lots to the cap: 20.5 at 1000 closes 10.5', () => {
    expect(liquidationStep(STEEP, position('20.5', '20500'), m('1000'), m('550'), m('620')).toFixed()).toBe(
      '10.5',
    );
  });

  it('third bracket: skips a lower bracket that does not restore the account, takes the next', () => {
    // 30 at 1000: maintenance 3000 - 1400 = 1600; balance 600.
    // to 20000: close 10, maintenance 600, fee 125: 475 <= 600; to 10000: close 20, maintenance 200, fee 250: 350 > 200
    expect(liquidationStep(STEEP, position('30', '30000'), m('1000'), m('600'), m('1600')).toFixed()).toBe(
      '20',
    );
  });

  it('no lower bracket restores the account: the whole position', () => {
    expect(liquidationStep(STEEP, position('30', '30000'), m('1000'), m('300'), m('1600')).toFixed()).toBe(
      '30',
    );
  });

  it('with the devnet BTC brackets (below the fee rate) a step into bracket 1 does not pay: all of it', () => {
    // 2 BTC at 29000: maintenance 240, balance 200; closing 0.276 frees 40 but costs 100.05 in fee
    const p = { ...position('2', '60000'), symbol: 'BTCUSDT' };
    expect(liquidationStep(BTC, p, m('29000'), m('200'), m('240')).toFixed()).toBe('2');
  });

  it('other positions count in the maintenance after the step', () => {
    // as the second-bracket case, with 400 more maintenance elsewhere: 700 - 125 <= 200 + 400
    expect(liquidationStep(STEEP, position('20', '20000'), m('1000'), m('700'), m('1000')).toFixed()).toBe(
      '20',
    );
    // and with 150 more balance it does: 725 > 600
    expect(liquidationStep(STEEP, position('20', '20000'), m('1000'), m('850'), m('1000')).toFixed()).toBe(
      '10',
    );
  });

  it('a planned step on a cross account in the second bracket', () => {
    const { book, open, states, plan } = bookWith('550');
    open('STEEPUSDT', 'BUY', '20', '1000');
    book.setMarkPrice('STEEPUSDT', m('1000'));
    const p = plan(states()[0])!;
    // bankruptcy (20000 - 550) / 20 = 972.5
    expect([p.quantity.toFixed(), p.bankruptcyPrice.toFixed()]).toEqual(['10', '972.5']);
  });
});
