import { Account, AccountBook, type AccountState, Money, parseMarket } from '@perp/domain';
import { ZodError } from 'zod';
import {
  ACCOUNT_FIELDS,
  accountHash,
  accountOrderField,
  type AccountProjection,
  accountProjectionOf,
} from './account-projection';
import type { OrderRecord } from '../messages/events';

const BTC = parseMarket({
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  tickSize: '0.1',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '5000000',
  maxLeverage: 125,
  defaultLeverage: 20,
  maxLongOi: '10000',
  maxShortOi: '10000',
  rank: 1,
  sortOrder: 1,
  maintenanceBrackets: [{ notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 }],
});
const USER = '0x' + 'ab'.repeat(20);
const m = (x: string) => new Money(x);

/** An account with a leverage setting, a short position and an open order, as risk writes it. */
function projection(): AccountProjection {
  const book = new AccountBook({
    markets: (s) => (s === BTC.symbol ? BTC : undefined),
    feeTiers: [{ tier: 0, makerRate: '0.0002', takerRate: '0.0005' }],
  });
  book.deposit(USER, m('10000'), 'd');
  expect(book.setLeverage(USER, BTC.symbol, 10).ok).toBe(true);
  const order = (orderId: string, side: 'BUY' | 'SELL', quantity: string, price: string) =>
    book.placeOrder(USER, {
      orderId,
      clientOrderId: `c-${orderId}`,
      symbol: BTC.symbol,
      side,
      type: 'LIMIT',
      quantity: m(quantity),
      price: m(price),
    });
  expect(order('o1', 'SELL', '0.5', '30000').ok).toBe(true);
  book.settleFill({
    user: USER,
    orderId: 'o1',
    symbol: BTC.symbol,
    side: 'SELL',
    price: m('30000'),
    qty: m('0.5'),
    liquidity: 'MAKER',
    closeQty: m('0'),
    tradeId: 't1',
    time: 5,
  });
  expect(order('o2', 'BUY', '0.2', '29000').ok).toBe(true);
  // Typed: the domain's AccountState is the projection's state as it is, no cast.
  return { v: 1, user: USER, time: 7, state: book.find(USER)!.toState(), orders: [] };
}

describe('account projection', () => {
  it('carries the AccountState through its hash typed, and the domain rebuilds the same account', () => {
    const written = projection();
    const read = accountProjectionOf(accountHash(written))!;
    const state: AccountState = read.state;
    expect(read).toEqual(written);
    expect(state.positions).toHaveLength(1);
    expect(state.orders.map((o) => o.orderId)).toEqual(['o2']);
    expect(Account.fromState(state).toState()).toEqual(written.state);
  });

  it('holds one field per open order, records oldest first; no head reads as no account', () => {
    const p = projection();
    const record = (orderId: string, time: number) => ({ orderId, time }) as unknown as OrderRecord;
    const hash = accountHash(p);
    expect(Object.keys(hash).sort()).toEqual([ACCOUNT_FIELDS.head, accountOrderField('o2')]);
    // Records are checked field by field: a malformed one is refused.
    hash[accountOrderField('x')] = JSON.stringify({ record: record('x', 1) });
    expect(() => accountProjectionOf(hash)).toThrow(ZodError);
    expect(accountProjectionOf({})).toBeUndefined();
  });

  it.each([
    ['a number for money', (s: State) => ({ ...s, walletBalance: 9990 }), ['state', 'walletBalance']],
    [
      'a decimal in exponent form',
      (s: State) => ({ ...s, walletBalance: '1e3' }),
      ['state', 'walletBalance'],
    ],
    ['a missing field', ({ positions: _positions, ...s }: State) => s, ['state', 'positions']],
    ['an unknown field', (s: State) => ({ ...s, extra: 1 }), ['state']],
    ['an unknown margin mode', (s: State) => ({ ...s, marginMode: 'PORTFOLIO' }), ['state', 'marginMode']],
    ['another state version', (s: State) => ({ ...s, v: 2 }), ['state', 'v']],
  ])('refuses a state with %s', (_name, change, path) => {
    const hash = accountHash(projection());
    const head = JSON.parse(hash[ACCOUNT_FIELDS.head]!) as { state: State };
    hash[ACCOUNT_FIELDS.head] = JSON.stringify({ ...head, state: change({ ...head.state }) });
    expect(refusedPaths(hash)).toEqual([path]);
  });
});

type State = Record<string, unknown>;

/** The paths of the issues the projection's schema finds (none when it parses). */
function refusedPaths(hash: Record<string, string>): PropertyKey[][] {
  try {
    accountProjectionOf(hash);
    return [];
  } catch (e) {
    if (!(e instanceof ZodError)) throw e;
    return e.issues.map((i) => i.path);
  }
}
