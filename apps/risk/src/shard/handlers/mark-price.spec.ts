import {
  ALICE,
  BOB,
  deposit,
  markPrice,
  marketStatus,
  newOrder,
  oid,
  riskHarness,
  T0,
  triggerOrder,
} from './__fixtures__/risk-context';

const FIRED_AT = T0 + 5000;

/** ALICE with 1000 USDT, BOB with 10, marks BTCUSDT 60000 and ETHUSDT 3500. */
function funded() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(deposit(BOB, '10'));
  h.run(markPrice('60000'));
  h.run(markPrice('3500', 'ETHUSDT'));
  return h;
}

describe('mark price handler', () => {
  it("sets the book's mark price and, with no trigger reached, emits nothing", () => {
    const h = funded();
    h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '61000'));
    const out = h.run(markPrice('60999.9'));
    expect(h.book.markPrices('BTCUSDT')?.toFixed()).toBe('60999.9');
    expect(out.engineCommands).toEqual([]);
    expect(out.accountEvents).toEqual([]);
    expect(out.users.size).toBe(0);
    expect(h.p.triggers.size).toBe(1);
  });

  it('ignores a mark that is not positive', () => {
    const h = funded();
    h.run(triggerOrder(1, 'STOP_MARKET', 'SELL', '59000'));
    const out = h.run(markPrice('0'));
    expect(h.book.markPrices('BTCUSDT')?.toFixed()).toBe('60000');
    expect(out.engineCommands).toEqual([]);
    expect(h.p.triggers.size).toBe(1);
  });

  it('fires every trigger it reaches in placement order, each forwarded under its own index', () => {
    const h = funded();
    h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '61000'));
    // Lower stop, placed later: reached first by a rising mark, fired second.
    h.run(triggerOrder(2, 'STOP_MARKET', 'BUY', '60500'));
    h.run(triggerOrder(3, 'STOP', 'SELL', '59000', { price: '58900' }));
    h.run(triggerOrder(4, 'STOP_MARKET', 'BUY', '3600', { symbol: 'ETHUSDT' }));
    const out = h.run(markPrice('61500', 'BTCUSDT', FIRED_AT));
    const place = (n: number, index: number) => ({
      id: h.outId(index),
      v: 1,
      time: FIRED_AT,
      origin: { partition: 0, offset: h.last.offset, index },
      type: 'order.place',
      orderId: oid(n),
      clientOrderId: `c${n}`,
      user: ALICE,
      symbol: 'BTCUSDT',
      side: 'BUY',
      orderType: 'MARKET',
      timeInForce: 'GTC',
      quantity: '0.01',
      reduceOnly: false,
      workingType: 'CONTRACT_PRICE',
      priceProtect: false,
      selfTradePreventionMode: 'EXPIRE_TAKER',
      // 0.01 x 61500 (the mark) / 20 x 1.005
      frozenMargin: '30.90375',
    });
    // No replyTo: the router's mark copies have none, and the placement was answered already.
    expect(out.engineCommands).toEqual([place(1, 0), place(2, 1)]);
    const fired = [h.p.openOrder(oid(1)), h.p.openOrder(oid(2))];
    expect(fired).toMatchObject([
      { status: 'NEW', type: 'MARKET', origType: 'STOP_MARKET', updateTime: FIRED_AT },
      { status: 'NEW', type: 'MARKET', origType: 'STOP_MARKET', updateTime: FIRED_AT },
    ]);
    expect(out.accountEvents).toEqual([
      { type: 'order', user: ALICE, order: fired[0] },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000', frozen: '30.90375' },
      { type: 'order', user: ALICE, order: fired[1] },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000', frozen: '61.8075' },
    ]);
    expect([...out.users]).toEqual([ALICE]);
    expect(out.closed).toEqual([]);
    expect(h.p.triggers.entries().map((t) => t.orderId)).toEqual([oid(3), oid(4)]);
  });

  it('a STOP fires as a LIMIT at its price, margined at that price', () => {
    const h = funded();
    h.run(triggerOrder(1, 'STOP', 'SELL', '59000', { price: '58900' }));
    const out = h.run(markPrice('58950'));
    // 0.01 x 58900 / 20 x 1.005
    expect(out.engineCommands).toMatchObject([
      {
        type: 'order.place',
        orderId: oid(1),
        side: 'SELL',
        orderType: 'LIMIT',
        price: '58900',
        frozenMargin: '29.59725',
      },
    ]);
    expect(h.p.openOrder(oid(1))).toMatchObject({ type: 'LIMIT', origType: 'STOP', price: '58900.0' });
  });

  it('a fired trigger that fails pre-trade is REJECTED; the others still go', () => {
    const h = funded();
    // BOB's 10 USDT cannot hold the 30.90375 the order will need when it fires.
    h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '61000', { user: BOB }));
    h.run(triggerOrder(2, 'STOP_MARKET', 'BUY', '61000'));
    const out = h.run(markPrice('61500', 'BTCUSDT', FIRED_AT));
    const rejected = h.p.record(oid(1));
    expect(rejected).toMatchObject({
      status: 'REJECTED',
      user: BOB,
      type: 'STOP_MARKET',
      updateTime: FIRED_AT,
    });
    expect(h.p.openOrder(oid(1))).toBeUndefined();
    expect(out.closed).toEqual([rejected]);
    expect(out.engineCommands).toMatchObject([{ orderId: oid(2), origin: { index: 1 }, id: h.outId(1) }]);
    expect(out.accountEvents.slice(0, 2)).toEqual([
      { type: 'order', user: BOB, order: rejected },
      { type: 'balance', user: BOB, asset: 'USDT', walletBalance: '10', frozen: '0' },
    ]);
    expect([...out.users].sort()).toEqual([ALICE, BOB]);
    expect(h.book.account(BOB).openOrders()).toEqual([]);
    expect(h.p.triggers.size).toBe(0);
  });

  it('a trigger reached while its market is halted is REJECTED', () => {
    const h = funded();
    h.run(triggerOrder(1, 'STOP_MARKET', 'SELL', '59000'));
    h.run(marketStatus('HALT', 1));
    const out = h.run(markPrice('58000'));
    expect(out.engineCommands).toEqual([]);
    expect(out.closed).toMatchObject([{ orderId: oid(1), status: 'REJECTED' }]);
  });

  it('a fired order and a resting one share the account: the second is margined on what is left', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '40'));
    h.run(markPrice('60000'));
    h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '61000'));
    h.run(newOrder(2));
    // 40 - 30.15 left: the fired order (30.90375) cannot be held.
    const out = h.run(markPrice('61000'));
    expect(out.engineCommands).toEqual([]);
    expect(out.closed).toMatchObject([{ orderId: oid(1), status: 'REJECTED' }]);
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('30.15');
  });
});
