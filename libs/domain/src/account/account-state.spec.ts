import { Money } from '../money/money';
import { BTC, ETH, FEE_TIERS, lookup, SOL } from './__fixtures__/markets';
import { moneyJson } from './__fixtures__/money-json';
import { Account } from './account';
import { AccountBook, type AccountBookOptions } from './account-book';
import { ACCOUNT_STATE_VERSION, type AccountBookState, type AccountState } from './account-state';
import { CLEARING_ACCOUNT, FEE_ACCOUNT, INSURANCE_FUND, Ledger, walletOf } from './ledger';
import type { Side } from './order';
import { positionClosingQty } from './position';

const m = (v: string) => new Money(v);
const OPTIONS: AccountBookOptions = { markets: lookup(BTC, ETH, SOL), feeTiers: FEE_TIERS };
const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
let seq = 0;

/** One side of a trade, with the engine's open/close split taken from the book's own position. */
function fill(
  book: AccountBook,
  user: string,
  symbol: string,
  side: Side,
  qty: string,
  price: string,
  orderId?: string,
) {
  const closeQty = positionClosingQty(book.find(user)?.position(symbol), side, m(qty));
  return book.settleFill({
    user,
    orderId,
    symbol,
    side,
    qty: m(qty),
    price: m(price),
    liquidity: orderId ? 'MAKER' : 'TAKER',
    closeQty,
    tradeId: `t${++seq}`,
    time: seq,
  });
}

function trade(book: AccountBook, symbol: string, buyer: string, seller: string, qty: string, price: string) {
  fill(book, buyer, symbol, 'BUY', qty, price);
  fill(book, seller, symbol, 'SELL', qty, price);
}

function place(
  book: AccountBook,
  user: string,
  req: { symbol: string; side: Side; price: string; qty: string },
) {
  const r = book.placeOrder(user, {
    orderId: `o${++seq}`,
    clientOrderId: `c${seq}`,
    symbol: req.symbol,
    side: req.side,
    type: 'LIMIT',
    price: m(req.price),
    quantity: m(req.qty),
  });
  if (!r.ok) throw new Error(r.reason);
  return r.order;
}

/**
 * Cross long and short, an isolated position with added collateral, UNIFIED, leverage settings,
 * VIP tiers, partly filled and reduceOnly open orders, realized PnL, commission and funding.
 */
function populated(): AccountBook {
  const book = new AccountBook(OPTIONS);
  book.setMarkPrice('BTCUSDT', m('30000'));
  book.setMarkPrice('ETHUSDT', m('2000'));
  for (const u of ['long', 'short', 'iso', 'unified']) book.deposit(u, m('100000'), `d-${u}`);
  book.deposit('dust', m('0.000000000000000001'), 'd-dust');
  expect(book.setVipTier('long', 3)).toBe(true);
  expect(book.setVipTier('iso', 9)).toBe(true);
  expect(book.setLeverage('long', 'BTCUSDT', 50).ok).toBe(true);
  expect(book.setLeverage('long', 'ETHUSDT', 7).ok).toBe(true);
  expect(book.setLeverage('iso', 'ETHUSDT', 10).ok).toBe(true);
  expect(book.setMarginMode('iso', 'ISOLATED').ok).toBe(true);
  expect(book.setMarginMode('unified', 'UNIFIED').ok).toBe(true);

  const bid = place(book, 'long', { symbol: 'BTCUSDT', side: 'BUY', price: '30000', qty: '0.5' });
  fill(book, 'long', 'BTCUSDT', 'BUY', '0.3', '30000', bid.orderId); // 0.2 stays open, frozen
  fill(book, 'short', 'BTCUSDT', 'SELL', '0.3', '30000');
  trade(book, 'BTCUSDT', 'long', 'short', '0.1', '30123.4');
  trade(book, 'BTCUSDT', 'short', 'long', '0.133', '30500.1'); // partial closes: realized PnL
  trade(book, 'ETHUSDT', 'iso', 'unified', '1.5', '2000.01');
  expect(book.addCollateral('iso', 'ETHUSDT', m('123.45')).ok).toBe(true);
  expect(book.removeCollateral('iso', 'ETHUSDT', m('0.45')).ok).toBe(true);
  for (const u of ['long', 'short'])
    book.applyFunding(u, 'BTCUSDT', m('0.0001'), m('30050'), seq, `f${++seq}`);

  place(book, 'long', { symbol: 'ETHUSDT', side: 'SELL', price: '2100', qty: '0.7' });
  place(book, 'unified', { symbol: 'BTCUSDT', side: 'BUY', price: '29000', qty: '0.01' });
  const reduce = book.placeOrder('short', {
    orderId: 'ro1',
    clientOrderId: 'reduce',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    price: m('29500'),
    quantity: m('0.05'),
    reduceOnly: true,
  });
  expect(reduce.ok).toBe(true);
  book.setMarkPrice('BTCUSDT', m('31000.5'));
  return book;
}

describe('AccountBook state round trip', () => {
  it('toState -> JSON -> fromState -> toState is the identity', () => {
    const book = populated();
    const state = book.toState();
    const restored = AccountBook.fromState(viaJson(state), OPTIONS);
    expect(restored.toState()).toEqual(state);
    expect(viaJson(state)).toEqual(state); // plain JSON: nothing lost in the stringify
  });

  it('holds every part of the book, money as plain decimal strings', () => {
    const state = populated().toState();
    expect(state.v).toBe(ACCOUNT_STATE_VERSION);
    expect(state.accounts.map((a) => a.user)).toEqual(['long', 'short', 'iso', 'unified', 'dust']);
    const [long, short, iso, unified, dust] = state.accounts;
    expect(long).toMatchObject({ vipTier: 3, marginMode: 'CROSS' });
    expect(long.leverages).toEqual([
      ['BTCUSDT', 50],
      ['ETHUSDT', 7],
    ]);
    expect(long.positions).toEqual([
      expect.objectContaining({ symbol: 'BTCUSDT', size: '0.267', leverage: 50 }),
    ]);
    expect(short.positions[0].size).toBe('-0.267');
    // The partly filled BTC bid and an ETH offer that opens: both hold frozen margin.
    expect(long.orders.map((o) => [o.symbol, o.remaining, o.frozen !== '0'])).toEqual([
      ['BTCUSDT', '0.2', true],
      ['ETHUSDT', '0.7', true],
    ]);
    expect(long.clientOrderIds).toEqual(long.orders.map((o) => [o.clientOrderId, o.orderId]));
    expect(short.orders).toEqual([expect.objectContaining({ reduceOnly: true, frozen: '0' })]);
    expect(iso).toMatchObject({ marginMode: 'ISOLATED', vipTier: 9 });
    expect(iso.positions[0]).toMatchObject({
      symbol: 'ETHUSDT',
      size: '1.5',
      collateral: '123',
      leverage: 10,
    });
    expect(unified.marginMode).toBe('UNIFIED');
    expect(dust.walletBalance).toBe('0.000000000000000001');
    const ledger = new Map<string, string>(state.ledger.balances);
    for (const a of [FEE_ACCOUNT, INSURANCE_FUND, CLEARING_ACCOUNT, walletOf('long')])
      expect(ledger.get(a)).toMatch(/^-?\d+(\.\d+)?$/);
    expect(state.ledger.totalDeposits).toBe('400000.000000000000000001');
    expect(state.marks).toEqual([
      ['BTCUSDT', '31000.5'],
      ['ETHUSDT', '2000'],
    ]);
    expect(JSON.stringify(state)).not.toMatch(/\d[eE][+-]?\d/);
  });

  it('restores a book that answers and trades exactly as the original', () => {
    const book = populated();
    const restored = AccountBook.fromState(viaJson(book.toState()), OPTIONS);
    for (const a of book.allAccounts()) {
      expect(moneyJson(restored.balances(a.user))).toBe(moneyJson(book.balances(a.user)));
      expect(moneyJson(restored.positions(a.user))).toBe(moneyJson(book.positions(a.user)));
    }
    expect(restored.account('long').leverage(BTC)).toBe(50);
    expect(restored.account('long').leverage(SOL)).toBe(SOL.defaultLeverage);
    expect(restored.ledger.total().eq(restored.ledger.totalDeposits)).toBe(true);

    const [bid] = book.account('long').openOrders('BTCUSDT');
    for (const b of [book, restored]) {
      // The clientOrderId index came back: a duplicate of an open order is still refused.
      const dup = b.placeOrder('long', {
        orderId: 'dup',
        clientOrderId: bid.clientOrderId,
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'LIMIT',
        price: m('30000'),
        quantity: m('0.01'),
      });
      expect(dup.ok ? 'ok' : dup.reason).toBe('DUPLICATE_CLIENT_ORDER_ID');
    }
    const start = seq;
    const next = (b: AccountBook) => {
      seq = start; // the same trade ids in both books
      return moneyJson([
        fill(b, 'long', 'BTCUSDT', 'BUY', '0.05', '30999', bid.orderId),
        fill(b, 'short', 'BTCUSDT', 'SELL', '0.05', '30999'),
        b.releaseOrder('long', bid.orderId),
        b.applyFunding('iso', 'ETHUSDT', m('-0.0003'), m('2010'), 99, 'f-eth'),
      ]);
    };
    expect(next(restored)).toBe(next(book));
    expect(restored.toState()).toEqual(book.toState());
  });

  it('round-trips an empty book', () => {
    const empty = new AccountBook(OPTIONS);
    expect(empty.toState()).toEqual({
      v: 1,
      accounts: [],
      ledger: { balances: [], totalDeposits: '0' },
      marks: [],
    });
    expect(AccountBook.fromState(viaJson(empty.toState()), OPTIONS).toState()).toEqual(empty.toState());
  });
});

describe('Account state round trip (one user, e.g. a hot-store projection)', () => {
  it('rebuilds every account of a book from its own state', () => {
    const book = populated();
    for (const a of book.allAccounts()) {
      const state = a.toState();
      const rebuilt = Account.fromState(viaJson(state));
      expect(rebuilt.toState()).toEqual(state);
      expect(moneyJson(rebuilt.balances(book.markPrices, OPTIONS.markets))).toBe(
        moneyJson(a.balances(book.markPrices, OPTIONS.markets)),
      );
      expect(rebuilt.frozenMargin().eq(a.frozenMargin())).toBe(true);
    }
  });

  it('is the same object the book state holds for that user', () => {
    const book = populated();
    expect(book.toState().accounts.find((s) => s.user === 'iso')).toEqual(book.account('iso').toState());
  });

  it('restores objects of its own: changing the restored account leaves the state alone', () => {
    const state = populated().account('long').toState();
    const copy = viaJson(state);
    const a = Account.fromState(copy);
    a.removeOrder(state.orders[0].orderId);
    expect(copy).toEqual(state);
    expect(a.hasActiveClientOrderId(state.orders[0].clientOrderId)).toBe(false);
  });
});

describe('malformed or foreign states', () => {
  const account = (): AccountState => populated().account('long').toState();
  const book = (): AccountBookState => populated().toState();
  const restoreAccount = (s: unknown) => () => Account.fromState(s);
  const restoreBook = (s: unknown) => () => AccountBook.fromState(s, OPTIONS);

  it('refuses another version with a clear message', () => {
    expect(restoreAccount({ ...account(), v: 2 })).toThrow('unsupported AccountState version 2: expected 1');
    expect(restoreBook({ ...book(), v: 2 })).toThrow('unsupported AccountBookState version 2: expected 1');
    const { v: _v, ...unversioned } = account();
    expect(restoreAccount(unversioned)).toThrow('unsupported AccountState version undefined');
    expect(restoreBook({ ...book(), v: '1' })).toThrow('unsupported AccountBookState version "1"');
  });

  it.each([null, undefined, 'state', 42, []])('refuses %p as a state', (input) => {
    expect(restoreAccount(input)).toThrow('malformed AccountState: not an object');
    expect(restoreBook(input)).toThrow('malformed AccountBookState: not an object');
  });

  it.each<[string, (s: AccountState) => unknown, string]>([
    ['money as a number', (s) => ({ ...s, walletBalance: 100 }), 'walletBalance'],
    ['money with an exponent', (s) => ({ ...s, walletBalance: '1e5' }), 'walletBalance'],
    ['an unknown margin mode', (s) => ({ ...s, marginMode: 'HEDGE' }), 'marginMode'],
    ['a fractional VIP tier', (s) => ({ ...s, vipTier: 1.5 }), 'vipTier'],
    ['a zero leverage', (s) => ({ ...s, leverages: [['BTCUSDT', 0]] }), 'leverages.0.1'],
    ['a missing field', ({ positions: _p, ...s }) => s, 'positions'],
    ['an unknown field', (s) => ({ ...s, extra: true }), 'extra'],
    ['a flat position', (s) => ({ ...s, positions: [{ ...s.positions[0], size: '0' }] }), 'positions.0.size'],
    [
      'a negative cost',
      (s) => ({ ...s, positions: [{ ...s.positions[0], cost: '-1' }] }),
      'positions.0.cost',
    ],
    ['an unknown side', (s) => ({ ...s, orders: [{ ...s.orders[0], side: 'LONG' }] }), 'orders.0.side'],
    [
      'negative frozen margin',
      (s) => ({ ...s, orders: [{ ...s.orders[0], frozen: '-0.1' }] }),
      'orders.0.frozen',
    ],
    [
      'two positions on one symbol',
      (s) => ({ ...s, positions: [s.positions[0], s.positions[0]] }),
      'two positions on BTCUSDT',
    ],
    ['an unindexed order', (s) => ({ ...s, clientOrderIds: s.clientOrderIds.slice(1) }), 'clientOrderIds'],
    [
      'an index pointing elsewhere',
      (s) => ({
        ...s,
        clientOrderIds: s.clientOrderIds.map(([c], i) => [c, s.clientOrderIds[1 - i][1]]),
      }),
      'does not index order',
    ],
  ])('refuses an account with %s', (_what, mutate, message) => {
    const fn = restoreAccount(mutate(account()));
    expect(fn).toThrow(Error);
    expect(fn).toThrow(message);
  });

  it.each<[string, (s: AccountBookState) => unknown, string]>([
    [
      'a nested account of another version',
      (s) => ({ ...s, accounts: [{ ...s.accounts[0], v: 2 }, ...s.accounts.slice(1)] }),
      'accounts.0.v',
    ],
    [
      'the same user twice',
      (s) => ({ ...s, accounts: [...s.accounts, s.accounts[0]] }),
      'account long twice',
    ],
    ['an unknown ledger account', (s) => withLedger(s, [['BANK', '0']]), 'ledger.balances.'],
    [
      'a ledger wallet unlike the account',
      (s) =>
        withLedger(s, [
          [walletOf('long'), '1'],
          [FEE_ACCOUNT, '-1'],
        ]),
      'wallet of long',
    ],
    ['a ledger that does not sum to the deposits', (s) => withLedger(s, [[FEE_ACCOUNT, '1']]), 'deposits'],
    ['a ledger wallet without an account', (s) => withLedger(s, [['wallet:ghost', '0']]), 'ghost'],
    ['a zero mark price', (s) => ({ ...s, marks: [['BTCUSDT', '0']] }), 'marks.0.1'],
    ['a mark price twice', (s) => ({ ...s, marks: [s.marks[0], s.marks[0]] }), 'mark price of BTCUSDT twice'],
  ])('refuses a book with %s', (_what, mutate, message) => {
    const fn = restoreBook(mutate(book()));
    expect(fn).toThrow(Error);
    expect(fn).toThrow(message);
  });

  it('refuses a malformed ledger state', () => {
    expect(() => Ledger.fromState({ balances: [['FEE', 1]], totalDeposits: '1' })).toThrow(
      'malformed LedgerState: balances.0.1',
    );
    expect(() => Ledger.fromState({ balances: [['FEE', '2']], totalDeposits: '1' })).toThrow('deposits');
  });
});

/** The book state with amounts added to ledger balances (a new ledger account goes last). */
function withLedger(s: AccountBookState, changes: [string, string][]): unknown {
  const balances = new Map<string, string>(s.ledger.balances);
  for (const [a, b] of changes) {
    const old = balances.get(a);
    balances.set(a, old === undefined ? b : m(old).plus(b).toFixed());
  }
  return { ...s, ledger: { ...s.ledger, balances: [...balances] } };
}
