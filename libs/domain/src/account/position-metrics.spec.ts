import { Money } from '../money/money';
import { BTC, FEE_TIERS, lookup } from './__fixtures__/markets';
import { AccountBook } from './account-book';
import type { Side } from './order';
import { accountMetrics, breakEvenPrice, liquidationPrice, symbolMetrics } from './position-metrics';

const m = (x: string) => new Money(x);
const markets = lookup(BTC);
const TAKER = m('0.0005');
const USER = '0x' + '1'.repeat(40);

// BTC brackets: up to 50,000 at 0.4 % (cum 0), 600,000 at 0.5 % (cum 50), 3,000,000 at 0.65 % (cum 950).
describe('liquidationPrice', () => {
  it('isolated long in the first bracket: (entry x size - isolated wallet) / (size - size x rate)', () => {
    // (10000 - 1000) / (1 - 0.004)
    expect(liquidationPrice(BTC, m('1'), m('10000'), m('1000')).toFixed(8)).toBe('9036.14457831');
  });

  it('long in the first bracket: collateral + size x (P - entry) = |size| x P x 0.004', () => {
    // (50000 - 5000) / (1 - 0.004)
    expect(liquidationPrice(BTC, m('1'), m('50000'), m('5000')).toFixed(8)).toBe('45180.72289156');
  });

  it('cross long backed by the wallet and another position (PnL 500, maintenance 100)', () => {
    // collateral 10000 + 500 - 100; (2 x 30000 - 10400) / (2 - 2 x 0.004)
    expect(liquidationPrice(BTC, m('2'), m('30000'), m('10400')).toFixed(8)).toBe('24899.59839357');
  });

  it('short whose liquidation notional falls in the second bracket (cum 50)', () => {
    // bracket 1 would give 55000 / 1.004 = 54780.88 (notional above 50000): (50000 + 5000 + 50) / 1.005
    expect(liquidationPrice(BTC, m('-1'), m('50000'), m('5000')).toFixed(8)).toBe('54776.11940298');
  });

  it('short of 20 BTC: brackets 1 and 2 give notionals above their caps, bracket 3 (cum 950) holds', () => {
    // (20 x 50000 + 50000 + 950) / (20 + 20 x 0.0065); notional 1,044,163 is within (600000, 3000000]
    const p = liquidationPrice(BTC, m('-20'), m('50000'), m('50000'));
    expect(p.toFixed(8)).toBe('52208.14704421');
    expect(p.times(20).gt(600000) && p.times(20).lte(3000000)).toBe(true);
  });

  it('0 when no positive price liquidates, or without a position or market', () => {
    expect(liquidationPrice(BTC, m('0.1'), m('50000'), m('10000')).toFixed()).toBe('0');
    expect(liquidationPrice(BTC, m('0'), m('50000'), m('10')).toFixed()).toBe('0');
    expect(liquidationPrice(undefined, m('1'), m('50000'), m('10')).toFixed()).toBe('0');
  });
});

describe('breakEvenPrice', () => {
  it('covers the opening and the closing taker fee', () => {
    // 50000 x 1.0005 / 0.9995 = 50050.025012506..., 50000 x 0.9995 / 1.0005 = 49950.024987506...
    expect(breakEvenPrice(m('1'), m('50000'), m('0.0005')).toFixed(6)).toBe('50050.025012');
    expect(breakEvenPrice(m('-1'), m('50000'), m('0.0005')).toFixed(6)).toBe('49950.024987');
    // 20000 x 1.0004 / 0.9996 and 20000 x 0.9996 / 1.0004
    expect(breakEvenPrice(m('0.5'), m('20000'), m('0.0004')).toFixed(8)).toBe('20016.00640256');
    expect(breakEvenPrice(m('-3'), m('20000'), m('0.0004')).toFixed(8)).toBe('19984.00639744');
  });

  it('is 0 when flat, and the entry with no fee', () => {
    expect(breakEvenPrice(m('0'), m('50000'), m('0.0005')).toFixed()).toBe('0');
    expect(breakEvenPrice(m('1'), m('50000'), m('0')).toFixed()).toBe('50000');
  });
});

/** A user with 5000 USDT and a 1 BTC position at 50000 (maker fee 10), in the given margin mode. */
function trader(side: Side, mode: 'CROSS' | 'ISOLATED' = 'CROSS') {
  const book = new AccountBook({ markets, feeTiers: FEE_TIERS });
  book.deposit(USER, m('5000'), 'd');
  expect(book.setMarginMode(USER, mode).ok).toBe(true);
  expect(book.placeOrder(USER, order('o', side, '1', '50000')).ok).toBe(true);
  book.settleFill({
    user: USER,
    orderId: 'o',
    symbol: BTC.symbol,
    side,
    price: m('50000'),
    qty: m('1'),
    liquidity: 'MAKER',
    closeQty: m('0'),
    tradeId: 't',
    time: 1,
  });
  book.setMarkPrice(BTC.symbol, m('50000'));
  return book;
}

function order(orderId: string, side: Side, quantity: string, price: string) {
  return {
    orderId,
    clientOrderId: `c-${orderId}`,
    symbol: BTC.symbol,
    side,
    type: 'LIMIT' as const,
    quantity: m(quantity),
    price: m(price),
  };
}

function metricsAt(book: AccountBook, mark?: string) {
  if (mark) book.setMarkPrice(BTC.symbol, m(mark));
  const [r] = symbolMetrics(book.find(USER)!, [BTC.symbol], book.markPrices, markets, TAKER);
  return r;
}

describe('symbolMetrics', () => {
  it.each(['BUY', 'SELL'] as const)('cross %s: at the liquidation price the margin ratio is 1', (side) => {
    const book = trader(side);
    const liq = metricsAt(book).liquidationPrice;
    expect(liq.gt(0)).toBe(true);
    metricsAt(book, liq.toFixed(8));
    const ratio = book.find(USER)!.balances(book.markPrices, markets).marginRatio;
    expect(ratio.minus(1).abs().lt('0.000001')).toBe(true);
  });

  it('isolated long with added collateral: liquidation at (50000 - 3000) / 0.996, where its own ratio is 1', () => {
    const book = trader('BUY', 'ISOLATED');
    expect(book.addCollateral(USER, BTC.symbol, m('500')).ok).toBe(true);
    const r = metricsAt(book);
    // margin 50000 / 20 = 2500, plus 500 collateral
    expect([r.positionInitialMargin, r.collateral, r.isolatedWallet].map((x) => x.toFixed())).toEqual([
      '2500',
      '500',
      '3000',
    ]);
    expect(r.liquidationPrice.toFixed(8)).toBe('47188.75502008');
    const at = metricsAt(book, r.liquidationPrice.toFixed(8));
    expect(at.position!.marginRatio.minus(1).abs().lt('0.000001')).toBe(true);
    expect(at.isolatedMargin.toFixed(8)).toBe(at.isolatedWallet.plus(at.unrealizedPnl).toFixed(8));
  });

  it('a short at a lower mark: signed notional, PnL, margins, leverage and open-order notionals', () => {
    const book = trader('SELL');
    expect(book.placeOrder(USER, order('b', 'BUY', '0.1', '48000')).ok).toBe(true);
    expect(book.placeOrder(USER, order('a', 'SELL', '0.2', '52000')).ok).toBe(true);
    const r = metricsAt(book, '49000');
    expect({
      size: r.size.toFixed(),
      notional: r.notional.toFixed(),
      unrealizedPnl: r.unrealizedPnl.toFixed(),
      maintMargin: r.maintMargin.toFixed(),
      bidNotional: r.bidNotional.toFixed(),
      askNotional: r.askNotional.toFixed(),
      leverage: r.leverage,
      maxNotional: r.maxNotional.toFixed(),
      breakEvenPrice: r.breakEvenPrice.toFixed(6),
      // wallet 4990 (maker fee 10): bracket 2, (50000 + 4990 + 50) / 1.005 = 54766.169154228...
      liquidationPrice: r.liquidationPrice.toFixed(6),
      marginType: r.marginType,
      active: r.active,
    }).toEqual({
      size: '-1',
      notional: '-49000',
      unrealizedPnl: '1000',
      maintMargin: '196', // 49000 x 0.004
      bidNotional: '4800',
      askNotional: '10400',
      leverage: 20,
      maxNotional: '12000000', // the largest cap whose bracket allows 20x
      breakEvenPrice: '49950.024987',
      liquidationPrice: '54766.169154',
      marginType: 'cross',
      active: true,
    });
    expect(r.initialMargin.toFixed()).toBe(r.positionInitialMargin.plus(r.openOrderInitialMargin).toFixed());
    expect(r.openOrderInitialMargin.gt(0)).toBe(true);
  });

  it('a symbol without position or orders is flat and inactive', () => {
    const book = new AccountBook({ markets, feeTiers: FEE_TIERS });
    book.deposit(USER, m('100'), 'd');
    const [r] = symbolMetrics(book.find(USER)!, [BTC.symbol], book.markPrices, markets, TAKER);
    expect(
      [r.size, r.notional, r.liquidationPrice, r.breakEvenPrice, r.markPrice].map((x) => x.toFixed()),
    ).toEqual(['0', '0', '0', '0', '0']);
    expect([r.active, r.position, r.leverage]).toEqual([false, undefined, 20]);
  });
});

describe('accountMetrics', () => {
  it('cross: a profit counts in the margin balance but cannot be withdrawn', () => {
    const book = trader('BUY');
    book.setMarkPrice(BTC.symbol, m('51000'));
    const a = accountMetrics(book.find(USER)!, book.markPrices, markets);
    const f = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v.toFixed()]));
    expect(f).toEqual({
      walletBalance: '4990',
      unrealizedProfit: '1000',
      marginBalance: '5990',
      positionInitialMargin: '2500',
      openOrderInitialMargin: '0',
      initialMargin: '2500',
      maintMargin: '205', // bracket 2: 51000 x 0.005 - 50
      crossWalletBalance: '4990',
      crossUnPnl: '1000',
      availableBalance: '3490', // 4990 + 1000 - 2500
      maxWithdrawAmount: '2490', // 3490 - 1000
    });
  });

  it('isolated: the position margin leaves the cross wallet and its PnL is not cross PnL', () => {
    const book = trader('BUY', 'ISOLATED');
    book.setMarkPrice(BTC.symbol, m('49000'));
    const a = accountMetrics(book.find(USER)!, book.markPrices, markets);
    expect(
      [a.crossWalletBalance, a.crossUnPnl, a.unrealizedProfit, a.maxWithdrawAmount].map((x) => x.toFixed()),
    ).toEqual(['2490', '0', '-1000', '2490']);
  });
});
