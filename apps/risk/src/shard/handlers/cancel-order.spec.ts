import {
  ALICE,
  BOB,
  cancel,
  cancelAll,
  deposit,
  markPrice,
  newOrder,
  oid,
  riskHarness,
  T0,
  triggerOrder,
} from './__fixtures__/risk-context';

/** ALICE: resting LIMIT 1 (30.15 frozen), waiting STOP_MARKET 2 on BTCUSDT, waiting 3 on ETHUSDT. */
function withOrders() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(markPrice('60000'));
  h.run(markPrice('3500', 'ETHUSDT'));
  h.run(newOrder(1));
  h.run(triggerOrder(2, 'STOP_MARKET', 'BUY', '61000'));
  h.run(triggerOrder(3, 'STOP_MARKET', 'BUY', '3600', { symbol: 'ETHUSDT' }));
  return h;
}

describe('cancel handler', () => {
  it('forwards the cancel of a resting order to the engine, which answers; margin stays frozen until then', () => {
    const h = withOrders();
    const out = h.run(cancel({ orderId: oid(1) }), { reply: true });
    expect(out.engineCommands).toEqual([
      {
        id: h.outId(0),
        v: 1,
        time: T0,
        origin: { partition: 0, offset: h.last.offset },
        replyTo: h.replyTo(),
        type: 'order.cancel',
        user: ALICE,
        symbol: 'BTCUSDT',
        orderId: oid(1),
      },
    ]);
    expect(out.reply).toBeUndefined();
    expect(out.accountEvents).toEqual([]);
    expect(out.closed).toEqual([]);
    expect(h.p.openOrder(oid(1))?.status).toBe('NEW');
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('30.15');
  });

  it('finds the order by client id and forwards it by order id, without replyTo when none was asked', () => {
    const h = withOrders();
    const [command] = h.run(cancel({ clientOrderId: 'c1' })).engineCommands;
    expect(command).toMatchObject({ type: 'order.cancel', orderId: oid(1) });
    expect(command).not.toHaveProperty('replyTo');
  });

  it('cancels a waiting trigger here: closed CANCELED, answered at once, nothing for the engine', () => {
    const h = withOrders();
    const out = h.run(cancel({ clientOrderId: 'c2' }), { reply: true });
    const closed = { ...h.p.record(oid(2)), status: 'CANCELED' };
    expect(out.reply).toEqual({ ok: true, result: closed });
    expect(out.closed).toEqual([closed]);
    expect(out.engineCommands).toEqual([]);
    expect(out.accountEvents).toEqual([
      { type: 'order', user: ALICE, order: closed },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000', frozen: '30.15' },
    ]);
    expect([...out.users]).toEqual([ALICE]);
    expect(h.p.triggers.get(oid(2))).toBeUndefined();
    expect(h.p.openOrdersOf(ALICE).map((o) => o.orderId)).toEqual([oid(1), oid(3)]);
    // It does not fire any more.
    expect(h.run(markPrice('62000')).engineCommands).toEqual([]);
  });

  it.each([
    ['an unknown id', cancel({ orderId: oid(9) })],
    ['an unknown client id', cancel({ clientOrderId: 'nope' })],
    ['no id at all', cancel({})],
    ['another symbol', cancel({ orderId: oid(1) }, ALICE, 'ETHUSDT')],
    ["another user's order", cancel({ orderId: oid(1) }, BOB)],
  ])('refuses %s with UNKNOWN_ORDER', (_, command) => {
    const h = withOrders();
    const out = h.run(command, { reply: true });
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'UNKNOWN_ORDER', msg: 'no open order with this id' },
    });
    expect(out.engineCommands).toEqual([]);
    expect(h.p.triggers.size).toBe(2);
  });

  it('refuses a closed order with UNKNOWN_ORDER', () => {
    const h = withOrders();
    h.run(cancel({ orderId: oid(2) }));
    expect(h.run(cancel({ orderId: oid(2) })).reply).toMatchObject({
      ok: false,
      error: { reason: 'UNKNOWN_ORDER' },
    });
  });
});

describe('cancel-all handler', () => {
  it("closes the symbol's waiting triggers here and forwards order.cancelAll for the resting ones", () => {
    const h = withOrders();
    const out = h.run(cancelAll(), { reply: true });
    const closed = { ...h.p.record(oid(2)), status: 'CANCELED' };
    expect(out.closed).toEqual([closed]);
    expect(out.engineCommands).toEqual([
      {
        id: h.outId(0),
        v: 1,
        time: T0,
        origin: { partition: 0, offset: h.last.offset },
        replyTo: h.replyTo(),
        type: 'order.cancelAll',
        user: ALICE,
        symbol: 'BTCUSDT',
      },
    ]);
    // The engine's command.result answers.
    expect(out.reply).toBeUndefined();
    expect(out.accountEvents).toEqual([
      { type: 'order', user: ALICE, order: closed },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000', frozen: '30.15' },
    ]);
    expect(h.p.openOrder(oid(1))?.status).toBe('NEW');
    expect([...h.p.triggers.entries()].map((t) => t.orderId)).toEqual([oid(3)]);
  });

  it('forwards even with nothing open here (the engine is the book of record)', () => {
    const h = riskHarness();
    const out = h.run(cancelAll(BOB));
    expect(out.engineCommands).toMatchObject([{ type: 'order.cancelAll', user: BOB, symbol: 'BTCUSDT' }]);
    expect(out.engineCommands[0]).not.toHaveProperty('replyTo');
    expect(out.closed).toEqual([]);
    expect(out.accountEvents).toEqual([]);
  });
});
