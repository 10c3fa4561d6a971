import { Money } from '../money/money';
import { BTC, ETH, FEE_TIERS, lookup, SOL } from './__fixtures__/markets';
import { AccountBook } from './account-book';
import { parseMarginMode } from './margin-mode';
import type { Side } from './order';

const m = (v: string) => new Money(v);
let seq = 0;

function setup(mode?: string) {
  const book = new AccountBook({ markets: lookup(BTC, ETH, SOL), feeTiers: FEE_TIERS });
  book.setMarkPrice('BTCUSDT', m('30000'));
  book.deposit('u1', m('10000'), 'd1');
  if (mode) expect(book.setMarginMode('u1', mode).ok).toBe(true);
  return book;
}

/** An unbacked maker fill (fee 0.0002) that opens a position for u1. */
function open(book: AccountBook, side: Side, qty: string, price: string) {
  return book.settleFill({
    user: 'u1',
    symbol: 'BTCUSDT',
    side,
    qty: m(qty),
    price: m(price),
    liquidity: 'MAKER',
    closeQty: m('0'),
    tradeId: `t${++seq}`,
    time: seq,
  });
}

function rest(book: AccountBook) {
  const r = book.placeOrder('u1', {
    orderId: `o${++seq}`,
    clientOrderId: `c${seq}`,
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    price: m('20000'),
    quantity: m('0.01'),
  });
  if (!r.ok) throw new Error(r.reason);
  return r.order.orderId;
}

describe('leverage', () => {
  it('defaults to the market default, per symbol', () => {
    const a = setup().account('u1');
    expect(a.leverage(BTC)).toBe(20);
    expect(a.leverage(SOL)).toBe(10);
  });

  it('is set per symbol and answers maxNotionalValue', () => {
    const book = setup();
    const r = book.setLeverage('u1', 'BTCUSDT', 50);
    expect(r).toMatchObject({ ok: true, symbol: 'BTCUSDT', leverage: 50 });
    expect(r.ok && r.maxNotionalValue.toFixed()).toBe('12000000');
    expect(book.account('u1').leverage(BTC)).toBe(50);
    expect(book.account('u1').leverage(ETH)).toBe(20);
    expect(book.account('u2').leverage(BTC)).toBe(20);
  });

  it.each([0, -3, 126, 2.5])('rejects %p with INVALID_LEVERAGE and keeps the old value', (lev) => {
    const book = setup();
    const r = book.setLeverage('u1', 'BTCUSDT', lev);
    expect(r.ok ? 'ok' : r.reason).toBe('INVALID_LEVERAGE');
    expect(book.account('u1').leverage(BTC)).toBe(20);
  });

  it('validates against each market maximum and knows only configured symbols', () => {
    const book = setup();
    expect(book.setLeverage('u1', 'SOLUSDT', 51).ok).toBe(false);
    expect(book.setLeverage('u1', 'SOLUSDT', 50).ok).toBe(true);
    const r = book.setLeverage('u1', 'DOGEUSDT', 5);
    expect(r.ok ? 'ok' : r.reason).toBe('INVALID_SYMBOL');
  });
});

describe('margin mode', () => {
  it('parses the three modes and FAPI CROSSED, rejecting anything else', () => {
    expect(parseMarginMode('cross')).toBe('CROSS');
    expect(parseMarginMode('CROSSED')).toBe('CROSS');
    expect(parseMarginMode('Isolated')).toBe('ISOLATED');
    expect(parseMarginMode('unified')).toBe('UNIFIED');
    expect(parseMarginMode('hedge')).toBeUndefined();
    expect(parseMarginMode(1)).toBeUndefined();
    const r = setup().setMarginMode('u1', 'portfolio');
    expect(r.ok ? 'ok' : r.reason).toBe('INVALID_MARGIN_MODE');
  });

  it('is idempotent: the current mode succeeds without preconditions', () => {
    const book = setup();
    open(book, 'BUY', '0.1', '30000');
    rest(book);
    expect(book.setMarginMode('u1', 'CROSS')).toEqual({ ok: true, mode: 'CROSS', changed: false });
  });

  it('needs no open orders (HAS_OPEN_ORDERS), then no open positions (HAS_OPEN_POSITIONS)', () => {
    const book = setup();
    open(book, 'BUY', '0.1', '30000');
    const id = rest(book);
    const reason = () => {
      const r = book.setMarginMode('u1', 'ISOLATED');
      return r.ok ? 'ok' : r.reason;
    };
    expect(reason()).toBe('HAS_OPEN_ORDERS');
    book.releaseOrder('u1', id);
    expect(reason()).toBe('HAS_OPEN_POSITIONS');
    book.settleFill({
      user: 'u1',
      symbol: 'BTCUSDT',
      side: 'SELL',
      qty: m('0.1'),
      price: m('30000'),
      liquidity: 'MAKER',
      closeQty: m('0.1'),
      tradeId: 'close',
      time: 1,
    });
    expect(reason()).toBe('ok');
    expect(book.account('u1').marginMode).toBe('ISOLATED');
  });

  it('computes UNIFIED exactly as CROSS', () => {
    const cross = setup();
    const unified = setup('UNIFIED');
    for (const book of [cross, unified]) {
      open(book, 'BUY', '0.1', '30000');
      book.setMarkPrice('BTCUSDT', m('29000'));
    }
    expect(unified.balances('u1')).toEqual(cross.balances('u1'));
    expect(unified.positions('u1')[0].marginType).toBe('cross');
  });
});

describe('balances', () => {
  it('cross: wallet, unrealized PnL, position margin, maintenance and margin ratio', () => {
    const book = setup();
    open(book, 'BUY', '0.1', '30000'); // fee 0.6, margin 150
    book.setMarkPrice('BTCUSDT', m('31000'));
    rest(book); // 200 / 20 x 1.005 = 10.05 frozen
    const b = book.balances('u1');
    expect(b.walletBalance.toFixed()).toBe('9999.4');
    expect(b.unrealizedPnl.toFixed()).toBe('100');
    expect(b.marginBalance.toFixed()).toBe('10099.4');
    expect(b.positionMargin.toFixed()).toBe('150');
    expect(b.orderMargin.toFixed()).toBe('10.05');
    expect(b.maintenanceMargin.toFixed()).toBe('12.4'); // 3100 x 0.004
    expect(b.availableBalance.toFixed()).toBe('9939.35'); // 10099.4 - 150 - 10.05
    expect(b.marginRatio.toFixed()).toBe(m('12.4').div('10099.4').toFixed());
    const [p] = book.positions('u1');
    expect(p).toMatchObject({ symbol: 'BTCUSDT', leverage: 20, marginType: 'cross' });
    expect(p.notional.toFixed()).toBe('3100');
    expect(p.entryPrice.toFixed()).toBe('30000');
  });

  it('uses the entry price for a position whose symbol has no mark price yet', () => {
    const book = setup();
    book.settleFill({
      user: 'u1',
      symbol: 'ETHUSDT',
      side: 'SELL',
      qty: m('1'),
      price: m('2000'),
      liquidity: 'MAKER',
      closeQty: m('0'),
      tradeId: 'e1',
      time: 1,
    });
    expect(book.balances('u1').unrealizedPnl.toFixed()).toBe('0');
    expect(book.balances('u1').maintenanceMargin.toFixed()).toBe('10'); // 2000 x 0.005
  });
});

describe('isolated positions and collateral', () => {
  it('keep their margin out of the available balance and their PnL out of the others', () => {
    const book = setup('ISOLATED');
    open(book, 'BUY', '0.1', '30000');
    book.setMarkPrice('BTCUSDT', m('29000'));
    const b = book.balances('u1');
    expect(b.isolatedMargin.toFixed()).toBe('150');
    expect(b.positionMargin.toFixed()).toBe('0');
    expect(b.unrealizedPnl.toFixed()).toBe('-100');
    expect(b.availableBalance.toFixed()).toBe('9849.4'); // 9999.4 - 150: the loss stays isolated
    const [p] = book.positions('u1');
    expect(p.marginType).toBe('isolated');
    expect(p.marginRatio.toFixed()).toBe('0.232'); // 2900 x 0.004 / (150 - 100)
  });

  it('add: isolated mode, a positive amount, an open position, within the available balance', () => {
    const cross = setup();
    open(cross, 'BUY', '0.1', '30000');
    const r0 = cross.addCollateral('u1', 'BTCUSDT', m('10'));
    expect(r0.ok ? 'ok' : r0.reason).toBe('INVALID_MARGIN_MODE');

    const book = setup('ISOLATED');
    open(book, 'BUY', '0.1', '30000');
    const reason = (symbol: string, amount: string) => {
      const r = book.addCollateral('u1', symbol, m(amount));
      return r.ok ? 'ok' : r.reason;
    };
    expect(reason('BTCUSDT', '0')).toBe('INVALID_AMOUNT');
    expect(reason('BTCUSDT', '-1')).toBe('INVALID_AMOUNT');
    expect(reason('ETHUSDT', '1')).toBe('POSITION_NOT_FOUND');
    expect(reason('BTCUSDT', '9849.41')).toBe('INSUFFICIENT_BALANCE');
    const r = book.addCollateral('u1', 'BTCUSDT', m('50'));
    expect(r.ok && [r.collateral.toFixed(), r.isolatedMargin.toFixed()]).toEqual(['50', '200']);
    expect(book.balances('u1').availableBalance.toFixed()).toBe('9799.4');
  });

  it('remove: never below the initial margin, an unrealized loss counting and a profit not', () => {
    const book = setup('ISOLATED');
    open(book, 'BUY', '0.1', '30000');
    book.addCollateral('u1', 'BTCUSDT', m('50'));
    const reason = (amount: string) => {
      const r = book.removeCollateral('u1', 'BTCUSDT', m(amount));
      return r.ok ? 'ok' : r.reason;
    };
    book.setMarkPrice('BTCUSDT', m('29900')); // -10 unrealized: 40 removable
    expect(reason('40.00000001')).toBe('INVALID_AMOUNT');
    book.setMarkPrice('BTCUSDT', m('31000')); // +100 unrealized: still only the 50 added
    expect(reason('50.00000001')).toBe('INVALID_AMOUNT');
    expect(reason('20')).toBe('ok');
    expect(reason('30')).toBe('ok');
    expect(book.positions('u1')[0].isolatedMargin.toFixed()).toBe('150'); // the initial margin
    expect(reason('0.00000001')).toBe('INVALID_AMOUNT');
    expect(book.balances('u1').availableBalance.toFixed()).toBe('9849.4');
  });

  it('releases added collateral with the position', () => {
    const book = setup('ISOLATED');
    open(book, 'BUY', '0.2', '30000');
    book.addCollateral('u1', 'BTCUSDT', m('100'));
    const r = book.settleFill({
      user: 'u1',
      symbol: 'BTCUSDT',
      side: 'SELL',
      qty: m('0.1'),
      price: m('30000'),
      liquidity: 'MAKER',
      closeQty: m('0.1'),
      tradeId: 'half',
      time: 1,
    });
    expect(r.releasedPositionMargin.toFixed()).toBe('200'); // 150 margin + 50 collateral
    expect(book.positions('u1')[0].isolatedMargin.toFixed()).toBe('200');
  });
});
