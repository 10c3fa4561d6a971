import { Money } from '../money/money';
import { BTC, FEE_TIERS, lookup } from './__fixtures__/markets';
import { AccountBook } from './account-book';
import type { Liquidity } from './fees';
import { CLEARING_ACCOUNT, FEE_ACCOUNT, INSURANCE_FUND, walletOf } from './ledger';
import type { Side } from './order';
import type { PreTradeResult } from './pre-trade';

const m = (v: string) => new Money(v);
let seq = 0;

function setup() {
  const book = new AccountBook({ markets: lookup(BTC), feeTiers: FEE_TIERS });
  book.setMarkPrice('BTCUSDT', m('30000'));
  book.deposit('u1', m('10000'), 'd1');
  book.deposit('u2', m('10000'), 'd2');
  return book;
}

function place(book: AccountBook, user: string, side: Side, qty: string, price?: string): string {
  const id = `o${++seq}`;
  const r: PreTradeResult = book.placeOrder(user, {
    orderId: id,
    clientOrderId: `c${id}`,
    symbol: 'BTCUSDT',
    side,
    type: price ? 'LIMIT' : 'MARKET',
    quantity: m(qty),
    price: price ? m(price) : undefined,
  });
  if (!r.ok) throw new Error(r.reason);
  return id;
}

function fill(
  book: AccountBook,
  user: string,
  orderId: string | undefined,
  side: Side,
  qty: string,
  price: string,
  liquidity: Liquidity,
  closeQty = '0',
  tradeId = `t${++seq}`,
) {
  return book.settleFill({
    user,
    orderId,
    symbol: 'BTCUSDT',
    side,
    qty: m(qty),
    price: m(price),
    liquidity,
    closeQty: m(closeQty),
    tradeId,
    time: 1000 + seq,
  });
}

/** Both sides of a trade between a resting order (maker) and an incoming one (taker). */
function trade(
  book: AccountBook,
  maker: [string, string, Side, string?],
  taker: [string, string, string?],
  qty: string,
  price: string,
) {
  const tradeId = `t${++seq}`;
  const [mu, mo, ms, mc] = maker;
  const [tu, to, tc] = taker;
  const a = fill(book, mu, mo, ms, qty, price, 'MAKER', mc ?? '0', tradeId);
  const b = fill(book, tu, to, ms === 'BUY' ? 'SELL' : 'BUY', qty, price, 'TAKER', tc ?? '0', tradeId);
  return [a, b] as const;
}

describe('settleFill: margin', () => {
  it('moves the filled share of frozen margin to the position at the fill price', () => {
    const book = setup();
    const bid = place(book, 'u1', 'BUY', '0.1', '30000'); // frozen 150.75
    const ask = place(book, 'u2', 'SELL', '0.1'); // MARKET at mark: frozen 150.75
    const [maker, taker] = trade(book, ['u1', bid, 'BUY'], ['u2', ask], '0.1', '30000');
    expect(maker.releasedFrozen.toFixed()).toBe('150.75');
    expect(maker.addedPositionMargin.toFixed()).toBe('150'); // 3000 / 20
    expect(maker.orderDone).toBe(true);
    expect(taker.orderDone).toBe(true);
    const b = book.balances('u1');
    expect(b.orderMargin.toFixed()).toBe('0');
    expect(b.positionMargin.toFixed()).toBe('150');
    expect(b.walletBalance.toFixed()).toBe('9999.4'); // maker fee 3000 x 0.0002 = 0.6
    expect(b.availableBalance.toFixed()).toBe('9849.4'); // the 0.75 buffer is released
    expect(book.balances('u2').walletBalance.toFixed()).toBe('9998.5'); // taker fee 3000 x 0.0005
    expect(book.ledger.balance(FEE_ACCOUNT).toFixed()).toBe('2.1');
  });

  it('releases frozen margin pro rata on partial fills and the rest on the last one', () => {
    const book = setup();
    const bid = place(book, 'u1', 'BUY', '0.3', '30000'); // 9000 / 20 x 1.005 = 452.25
    const first = fill(book, 'u1', bid, 'BUY', '0.1', '29000', 'TAKER');
    expect(first.releasedFrozen.toFixed()).toBe('150.75');
    expect(first.addedPositionMargin.toFixed()).toBe('145'); // 2900 / 20: the difference is released
    expect(first.orderDone).toBe(false);
    expect(book.account('u1').order(bid)!.remaining.toFixed()).toBe('0.2');
    expect(book.balances('u1').orderMargin.toFixed()).toBe('301.5');
    const last = fill(book, 'u1', bid, 'BUY', '0.2', '30000', 'TAKER');
    expect(last.releasedFrozen.toFixed()).toBe('301.5');
    expect(last.orderDone).toBe(true);
    expect(book.balances('u1').orderMargin.toFixed()).toBe('0');
    expect(book.balances('u1').positionMargin.toFixed()).toBe('445');
  });

  it('takes a fill above the reference price from the available balance', () => {
    const book = setup();
    const buy = place(book, 'u1', 'BUY', '0.1'); // MARKET frozen at mark 30000: 150.75
    const r = fill(book, 'u1', buy, 'BUY', '0.1', '31000', 'TAKER');
    expect(r.addedPositionMargin.toFixed()).toBe('155');
    expect(book.balances('u1').availableBalance.toFixed()).toBe('9743.45'); // 10000 - 1.55 fee - 155 - 100 unrealized at mark 30000
  });

  it('releases what is left on cancel, once', () => {
    const book = setup();
    const bid = place(book, 'u1', 'BUY', '0.3', '30000');
    fill(book, 'u1', bid, 'BUY', '0.1', '30000', 'MAKER');
    expect(book.releaseOrder('u1', bid)?.toFixed()).toBe('301.5');
    expect(book.releaseOrder('u1', bid)).toBeUndefined();
    expect(book.balances('u1').orderMargin.toFixed()).toBe('0');
  });
});

describe('settleFill: PnL, commission, income', () => {
  it('realizes PnL through the clearing account and records income with tranId = tradeId', () => {
    const book = setup();
    trade(
      book,
      ['u1', place(book, 'u1', 'BUY', '0.1', '30000'), 'BUY'],
      ['u2', place(book, 'u2', 'SELL', '0.1')],
      '0.1',
      '30000',
    );
    book.setMarkPrice('BTCUSDT', m('31000'));
    const [close] = trade(
      book,
      ['u1', place(book, 'u1', 'SELL', '0.1', '31000'), 'SELL', '0.1'],
      ['u2', place(book, 'u2', 'BUY', '0.1'), '0.1'],
      '0.1',
      '31000',
    );
    expect(close.realizedPnl.toFixed()).toBe('100');
    expect(
      close.incomes.map((i) => [i.incomeType, i.income.toFixed(), i.tranId === i.tradeId, i.time]),
    ).toEqual([
      ['REALIZED_PNL', '100', true, close.incomes[0].time],
      ['COMMISSION', '-0.62', true, close.incomes[0].time], // 3100 x 0.0002
    ]);
    expect(close.incomes[0].tradeId).toMatch(/^t\d+$/);
    expect(close.position).toBeUndefined();
    expect(book.ledger.balance(CLEARING_ACCOUNT).toFixed()).toBe('0'); // u2 lost the 100 u1 made
    expect(book.ledger.balance(walletOf('u2')).toFixed()).toBe('9896.95'); // 10000 - 100 - 1.5 - 1.55
    expect(book.ledger.total().eq(book.ledger.totalDeposits)).toBe(true);
  });

  it('pays a profit from the clearing account before the losing side has closed', () => {
    const book = setup();
    book.deposit('u3', m('10000'), 'd3');
    trade(
      book,
      ['u1', place(book, 'u1', 'BUY', '0.1', '30000'), 'BUY'],
      ['u2', place(book, 'u2', 'SELL', '0.1')],
      '0.1',
      '30000',
    );
    book.setMarkPrice('BTCUSDT', m('31000'));
    // u1 sells to u3 at 31000: u1 realizes +100, u2's -100 is still unrealized.
    trade(
      book,
      ['u3', place(book, 'u3', 'BUY', '0.1', '31000'), 'BUY'],
      ['u1', place(book, 'u1', 'SELL', '0.1'), '0.1'],
      '0.1',
      '31000',
    );
    expect(book.ledger.balance(CLEARING_ACCOUNT).toFixed()).toBe('-100');
    const upnl = ['u1', 'u2', 'u3'].reduce((s, u) => s.plus(book.balances(u).unrealizedPnl), m('0'));
    expect(upnl.toFixed()).toBe('-100'); // clearing = unrealized PnL of the open positions
  });

  it('charges the live VIP tier: maker and taker rates per tier', () => {
    const book = setup();
    expect(book.setVipTier('u1', 9)).toBe(true);
    expect(book.setVipTier('u1', 10)).toBe(false);
    const maker = fill(book, 'u1', undefined, 'BUY', '0.1', '30000', 'MAKER');
    expect(maker.commission.toFixed()).toBe('0');
    expect(maker.incomes).toEqual([]); // nothing to record at a zero rate
    const taker = fill(book, 'u1', undefined, 'BUY', '0.1', '30000', 'TAKER');
    expect(taker.commission.toFixed()).toBe('0.51'); // 3000 x 0.00017
    book.setVipTier('u1', 4);
    expect(fill(book, 'u1', undefined, 'BUY', '0.1', '30000', 'TAKER').commission.toFixed()).toBe('0.9'); // 0.0003
  });

  it('rounds commission up to 8 decimals', () => {
    const book = setup();
    const r = fill(book, 'u1', undefined, 'BUY', '0.001', '12345.7', 'MAKER'); // 12.3457 x 0.0002 = 0.00246914
    expect(r.commission.toFixed()).toBe('0.00246914');
    const s = fill(book, 'u1', undefined, 'BUY', '0.003', '12345.7', 'TAKER'); // 37.0371 x 0.0005 = 0.01851855
    expect(s.commission.toFixed()).toBe('0.01851855');
    const t = fill(book, 'u1', undefined, 'BUY', '0.001', '12345.1', 'TAKER'); // 12.3451 x 0.0005 = 0.00617255
    expect(t.commission.toFixed()).toBe('0.00617255');
    book.setVipTier('u1', 3);
    const u = fill(book, 'u1', undefined, 'BUY', '0.001', '12345.1', 'TAKER'); // x 0.00032 = 0.003950432
    expect(u.commission.toFixed()).toBe('0.00395044');
  });

  it('settles a flip: closes the long, opens a short at the fill price', () => {
    const book = setup();
    fill(book, 'u1', undefined, 'BUY', '0.1', '30000', 'MAKER');
    const r = fill(
      book,
      'u1',
      place(book, 'u1', 'SELL', '0.3', '29000'),
      'SELL',
      '0.3',
      '29000',
      'MAKER',
      '0.1',
    );
    expect(r.closedQty.toFixed()).toBe('0.1');
    expect(r.openedQty.toFixed()).toBe('0.2');
    expect(r.realizedPnl.toFixed()).toBe('-100');
    expect(r.releasedPositionMargin.toFixed()).toBe('150');
    expect(r.addedPositionMargin.toFixed()).toBe('290'); // 5800 / 20
    expect(r.position!.size.toFixed()).toBe('-0.2');
    expect(book.positions('u1')[0].entryPrice.toFixed()).toBe('29000');
  });

  it('stops on a fill that disagrees with the position or the order', () => {
    const book = setup();
    fill(book, 'u1', undefined, 'BUY', '0.1', '30000', 'MAKER');
    expect(() => fill(book, 'u1', undefined, 'SELL', '0.2', '30000', 'MAKER', '0.2')).toThrow('closes');
    const bid = place(book, 'u1', 'BUY', '0.1', '30000');
    expect(() => fill(book, 'u1', bid, 'BUY', '0.2', '30000', 'MAKER')).toThrow('does not match');
    expect(() => fill(book, 'u1', bid, 'SELL', '0.1', '30000', 'MAKER', '0.1')).toThrow('does not match');
    expect(() => fill(book, 'u1', undefined, 'BUY', '0', '30000', 'MAKER')).toThrow('positive');
    // Nothing changed.
    expect(book.account('u1').position('BTCUSDT')!.size.toFixed()).toBe('0.1');
  });
});

describe('applyFunding', () => {
  it('makes longs pay shorts at a positive rate, through the insurance fund', () => {
    const book = setup();
    trade(
      book,
      ['u1', place(book, 'u1', 'BUY', '0.1', '30000'), 'BUY'],
      ['u2', place(book, 'u2', 'SELL', '0.1')],
      '0.1',
      '30000',
    );
    const before = [book.balances('u1').walletBalance, book.balances('u2').walletBalance];
    const a = book.applyFunding('u1', 'BTCUSDT', m('0.0001'), m('30000'), 5000, 'f1');
    const b = book.applyFunding('u2', 'BTCUSDT', m('0.0001'), m('30000'), 5000, 'f1');
    expect(a.income!.income.toFixed()).toBe('-0.3');
    expect(b.income!.income.toFixed()).toBe('0.3');
    expect(a.income).toMatchObject({ incomeType: 'FUNDING_FEE', tranId: 'f1', tradeId: 'f1', time: 5000 });
    expect(book.balances('u1').walletBalance.minus(before[0]).toFixed()).toBe('-0.3');
    expect(book.balances('u2').walletBalance.minus(before[1]).toFixed()).toBe('0.3');
    expect(book.ledger.balance(INSURANCE_FUND).toFixed()).toBe('0');
  });

  it('rounds each payment down to 8 decimals: the fund keeps the dust', () => {
    const book = setup();
    trade(
      book,
      ['u1', place(book, 'u1', 'BUY', '0.1', '30000'), 'BUY'],
      ['u2', place(book, 'u2', 'SELL', '0.1')],
      '0.1',
      '30000',
    );
    // 0.1 x 30000.1 x 0.00012345 = 0.3703512345
    const a = book.applyFunding('u1', 'BTCUSDT', m('0.00012345'), m('30000.1'), 1, 'f2');
    const b = book.applyFunding('u2', 'BTCUSDT', m('0.00012345'), m('30000.1'), 1, 'f2');
    expect(a.income!.income.toFixed()).toBe('-0.37035124');
    expect(b.income!.income.toFixed()).toBe('0.37035123');
    expect(book.ledger.balance(INSURANCE_FUND).toFixed()).toBe('0.00000001');
    expect(book.ledger.total().eq(book.ledger.totalDeposits)).toBe(true);
  });

  it('makes shorts pay at a negative rate and skips flat accounts', () => {
    const book = setup();
    fill(book, 'u2', undefined, 'SELL', '0.1', '30000', 'MAKER');
    expect(
      book.applyFunding('u2', 'BTCUSDT', m('-0.0001'), m('30000'), 1, 'f3').income!.income.toFixed(),
    ).toBe('-0.3');
    expect(book.applyFunding('u1', 'BTCUSDT', m('0.0001'), m('30000'), 1, 'f3').income).toBeUndefined();
    expect(book.applyFunding('nobody', 'BTCUSDT', m('0.0001'), m('30000'), 1, 'f3').transfers).toEqual([]);
  });
});
