import { canceled, commandResult, copy, makerFillOfOrder1, trade } from './__fixtures__/engine-events';
import {
  ALICE,
  amend,
  BOB,
  deposit,
  newOrder,
  oid,
  REPLY_KEY,
  REPLY_TOPIC,
  riskHarness,
} from './__fixtures__/risk-context';

/** ALICE's BUY 0.01 @ 60000 (order 1) and BOB's SELL (order 2), 30.15 frozen each, 1000 USDT each. */
function crossed() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(deposit(BOB, '1000'));
  h.run(newOrder(1));
  h.run(newOrder(2, { user: BOB, side: 'SELL' }));
  return h;
}
const fill = trade(
  { user: ALICE, orderId: oid(1), side: 'BUY' },
  { user: BOB, orderId: oid(2), side: 'SELL' },
  '60000',
  '0.01',
);
const wallet = (h: ReturnType<typeof crossed>, user: string) => h.book.account(user).walletBalance.toFixed();
const amendOf1 = (price: string, quantity: string) => amend(oid(1), 'BUY', price, quantity);
const gateway = { topic: REPLY_TOPIC, key: REPLY_KEY, correlationId: 'req-1' };

describe('engine event handler', () => {
  describe('trade copies settle the side their liquidity names', () => {
    it('MAKER settles the maker at the maker fee (600 x 0.02 %), TAKER the taker at 0.05 %', () => {
      const h = crossed();
      const maker = h.run(copy(fill, 10, 0, 'MAKER'));
      expect(maker.accountEvents[0]).toMatchObject({
        type: 'trade',
        user: ALICE,
        trade: { maker: true, commission: '0.12' },
      });
      expect(wallet(h, ALICE)).toBe('999.88');
      expect(wallet(h, BOB)).toBe('1000');
      expect(h.book.account(BOB).frozenMargin().toFixed()).toBe('30.15');
      const taker = h.run(copy(fill, 10, 1, 'TAKER'));
      expect(taker.accountEvents[0]).toMatchObject({
        type: 'trade',
        user: BOB,
        trade: { maker: false, commission: '0.3' },
      });
      expect(wallet(h, BOB)).toBe('999.7');
      expect(h.book.positions(BOB).map((p) => p.size.toFixed())).toEqual(['-0.01']);
    });

    it('liquidity wins over the index', () => {
      const h = crossed();
      h.run(copy(fill, 10, 0, 'TAKER'));
      expect(wallet(h, BOB)).toBe('999.7');
      expect(wallet(h, ALICE)).toBe('1000');
    });

    it.each([
      [0, ALICE, '999.88'],
      [1, BOB, '999.7'],
      [4, ALICE, '999.88'],
      [5, BOB, '999.7'],
    ])(
      'a legacy copy without liquidity at index %p settles by parity (even maker)',
      (index, user, balance) => {
        const h = crossed();
        const out = h.run(copy(fill, 10, index));
        expect(out.accountEvents[0]).toMatchObject({
          type: 'trade',
          user,
          trade: { maker: index % 2 === 0 },
        });
        expect(wallet(h, user)).toBe(balance);
      },
    );
  });

  describe('dedupe by source place', () => {
    it('applies the same copy once', () => {
      const h = crossed();
      h.run(copy(fill, 10, 0, 'MAKER'));
      const again = h.run(copy(fill, 10, 0, 'MAKER'));
      expect(again.accountEvents).toEqual([]);
      expect(again.users.size).toBe(0);
      expect(wallet(h, ALICE)).toBe('999.88');
      expect(h.book.positions(ALICE).map((p) => p.size.toFixed())).toEqual(['0.01']);
    });

    it('drops what is at or below the mark of its engine partition, per partition', () => {
      const h = crossed();
      h.run(copy(canceled(ALICE, oid(9)), 10, 3));
      expect(h.run(copy(fill, 10, 2, 'MAKER')).accountEvents).toEqual([]);
      expect(h.run(copy(fill, 9, 7, 'MAKER')).accountEvents).toEqual([]);
      // Another engine partition has its own mark.
      expect(h.run(copy(fill, 9, 0, 'MAKER', 1)).accountEvents).not.toEqual([]);
      // Same offset, later index: new.
      expect(h.run(copy(fill, 10, 5, 'TAKER')).accountEvents).not.toEqual([]);
      expect(wallet(h, ALICE)).toBe('999.88');
      expect(wallet(h, BOB)).toBe('999.7');
    });

    it('does not mark a copy whose settlement threw, so the redelivery applies it', () => {
      const h = crossed();
      // The engine says the fill closes 0.01 of a position ALICE does not have: the copies diverged.
      const wrong = trade(
        { user: ALICE, orderId: oid(1), side: 'BUY', close: '0.01' },
        { user: BOB, orderId: oid(2), side: 'SELL' },
        '60000',
        '0.01',
      );
      expect(() => h.run(copy(wrong, 10, 0, 'MAKER'))).toThrow(/engine closes 0.01, risk position closes 0/);
      expect(h.p.engineMarks.isNew(0, 10n, 0)).toBe(true);
      expect(h.run(copy(fill, 10, 0, 'MAKER')).accountEvents).not.toEqual([]);
      expect(h.p.engineMarks.isNew(0, 10n, 0)).toBe(false);
    });
  });

  it('never answers the copying message itself', () => {
    const h = crossed();
    const out = h.run(copy(fill, 10, 0, 'MAKER'), { reply: true });
    expect(out.replyTo).toBeUndefined();
    expect(out.reply).toBeUndefined();
  });

  it.each([
    ['order.canceled', 'CANCELED'],
    ['order.expired', 'CANCELED'],
    ['order.rejected', 'REJECTED'],
  ] as const)('%s closes the order %s and releases its margin', (type, status) => {
    const h = crossed();
    const base = canceled(ALICE, oid(1));
    const event =
      type === 'order.canceled'
        ? base
        : type === 'order.expired'
          ? { ...base, type, reason: 'IOC' }
          : { ...base, type, reason: 'POST_ONLY_WOULD_TAKE' as const };
    const out = h.run(copy(event, 10));
    const closed = h.p.record(oid(1));
    expect(closed).toMatchObject({ status, orderId: oid(1) });
    expect(h.p.openOrder(oid(1))).toBeUndefined();
    expect(out.closed).toEqual([closed]);
    expect(out.accountEvents).toEqual([
      { type: 'order', user: ALICE, order: closed },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000', frozen: '0' },
    ]);
    expect([...out.users]).toEqual([ALICE]);
    expect(h.book.balances(ALICE).availableBalance.toFixed()).toBe('1000');
  });

  it('order.amended sets the price and the quantity (open + executed) on the record', () => {
    const h = crossed();
    h.run(makerFillOfOrder1('0.004', 9));
    const out = h.run(
      copy(
        {
          type: 'order.amended',
          orderId: oid(1),
          clientOrderId: 'c1',
          user: ALICE,
          symbol: 'BTCUSDT',
          seq: 3,
          price: '59000',
          quantity: '0.016',
        },
        10,
      ),
    );
    const record = h.p.openOrder(oid(1));
    expect(record).toMatchObject({
      status: 'PARTIALLY_FILLED',
      price: '59000.0',
      origQty: '0.020',
      executedQty: '0.004',
    });
    expect(out.accountEvents[0]).toEqual({ type: 'order', user: ALICE, order: record });
    expect([...out.users]).toEqual([ALICE]);
    // Re-margined for the open 0.016 at 59000: 0.016 x 59000 / 20 x 1.005
    expect(h.book.account(ALICE).order(oid(1))?.remaining.toFixed()).toBe('0.016');
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('47.436');
    expect(out.accountEvents[1]).toEqual({
      type: 'balance',
      user: ALICE,
      asset: 'USDT',
      walletBalance: h.book.account(ALICE).walletBalance.toFixed(),
      frozen: '47.436',
    });
  });

  it('an amend the engine refused leaves the order as the engine holds it: its full fill settles', () => {
    const h = crossed();
    const amendSent = h.run(amendOf1('59000', '0.005'));
    expect(amendSent.engineCommands).toHaveLength(1);
    const error = { reason: 'POST_ONLY_WOULD_TAKE' as const, msg: 'would take' };
    h.run(copy(commandResult({ command: 'order.amend', orderId: oid(1), ok: false, error }), 10));
    expect(h.book.account(ALICE).order(oid(1))?.remaining.toFixed()).toBe('0.01');
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('30.15');
    h.run(makerFillOfOrder1('0.01', 11));
    expect(h.p.openOrder(oid(1))).toBeUndefined();
    expect(h.book.account(ALICE).order(oid(1))).toBeUndefined();
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('0');
    expect(h.book.positions(ALICE)[0]?.size.toFixed()).toBe('0.01');
  });

  it('a fill the engine made before an amend reached it settles against the order it had', () => {
    const h = crossed();
    h.run(amendOf1('59000', '0.005'));
    // The whole old 0.01 filled first; the engine then refuses the amend of a gone order.
    h.run(makerFillOfOrder1('0.01', 10));
    const error = { reason: 'UNKNOWN_ORDER' as const, msg: 'gone' };
    h.run(copy(commandResult({ command: 'order.amend', orderId: oid(1), ok: false, error }), 11));
    expect(h.book.account(ALICE).order(oid(1))).toBeUndefined();
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('0');
    expect(h.book.account(ALICE).hasActiveClientOrderId('c1')).toBe(false);
  });

  describe('command.result', () => {
    it('a refused placement closes the order REJECTED and answers the requester with the reason', () => {
      const h = crossed();
      const error = { reason: 'POST_ONLY_WOULD_TAKE' as const, msg: 'would take' };
      const out = h.run(copy(commandResult({ orderId: oid(1), ok: false, error, replyTo: gateway }), 10));
      expect(out.replyTo).toEqual(gateway);
      expect(out.reply).toEqual({ ok: false, error });
      expect(out.closed).toMatchObject([{ orderId: oid(1), status: 'REJECTED' }]);
      expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('0');
    });

    it('a refusal without a reason answers INTERNAL_ERROR', () => {
      const h = crossed();
      const out = h.run(copy(commandResult({ orderId: oid(1), ok: false, replyTo: gateway }), 10));
      expect(out.reply).toEqual({
        ok: false,
        error: { reason: 'INTERNAL_ERROR', msg: 'the engine gave no reason' },
      });
    });

    it('a refused cancel closes nothing; without replyTo nobody is answered', () => {
      const h = crossed();
      const error = { reason: 'UNKNOWN_ORDER' as const, msg: 'gone' };
      const out = h.run(
        copy(commandResult({ command: 'order.cancel', orderId: oid(1), ok: false, error }), 10),
      );
      expect(out.reply).toBeUndefined();
      expect(out.replyTo).toBeUndefined();
      expect(out.closed).toEqual([]);
      expect(h.p.openOrder(oid(1))?.status).toBe('NEW');
    });

    it("a success answers with the order's record as settled so far (FILLED once the fill is in)", () => {
      const h = crossed();
      h.run(copy(fill, 10, 0, 'MAKER'));
      const out = h.run(copy(commandResult({ orderId: oid(1), replyTo: gateway }), 10, 2));
      expect(out.replyTo).toEqual(gateway);
      expect(out.reply).toEqual({ ok: true, result: h.p.record(oid(1)) });
      expect(out.reply?.result).toMatchObject({ status: 'FILLED', executedQty: '0.010', avgPrice: '60000' });
    });

    it("a success without an order (cancel-all) answers with the engine's result", () => {
      const h = crossed();
      const out = h.run(
        copy(commandResult({ command: 'order.cancelAll', result: { code: 200 }, replyTo: gateway }), 10),
      );
      expect(out.reply).toEqual({ ok: true, result: { code: 200 } });
    });
  });
});
