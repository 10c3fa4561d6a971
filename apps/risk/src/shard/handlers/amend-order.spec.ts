import { makerFillOfOrder1 } from './__fixtures__/engine-events';
import {
  ALICE,
  amend,
  BOB,
  deposit,
  markPrice,
  newOrder,
  oid,
  riskHarness,
  T0,
  triggerOrder,
} from './__fixtures__/risk-context';

/** ALICE with 1000 USDT and LIMIT BUY 0.01 @ 60000 resting (30.15 frozen). */
function resting() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(newOrder(1));
  return h;
}

describe('amend handler', () => {
  it('checks the margin of the open quantity at the new price and forwards order.amend; the account and the record wait for the engine', () => {
    const h = resting();
    const out = h.run(amend(oid(1), 'BUY', '59000', '0.02'), { reply: true });
    expect(out.engineCommands).toEqual([
      {
        id: h.outId(0),
        v: 1,
        time: T0,
        origin: { partition: 0, offset: h.last.offset },
        replyTo: h.replyTo(),
        type: 'order.amend',
        user: ALICE,
        symbol: 'BTCUSDT',
        orderId: oid(1),
        price: '59000',
        quantity: '0.02',
      },
    ]);
    expect(out.reply).toBeUndefined();
    // The engine still holds the old order: fills reaching it first settle against that one.
    expect(out.accountEvents).toEqual([]);
    expect(h.book.account(ALICE).order(oid(1))).toMatchObject({ clientOrderId: 'c1' });
    expect(h.book.account(ALICE).order(oid(1))?.quantity.toFixed()).toBe('0.01');
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('30.15');
    expect(h.p.openOrder(oid(1))).toMatchObject({ price: '60000.0', origQty: '0.010' });
  });

  it('after a partial fill the engine gets the open quantity: the new quantity minus what executed', () => {
    const h = resting();
    h.run(makerFillOfOrder1('0.004', 7));
    const out = h.run(amend(oid(1), 'BUY', '59000', '0.01'));
    expect(out.engineCommands[0]).toMatchObject({ quantity: '0.006', price: '59000' });
    expect(out.engineCommands[0]).not.toHaveProperty('replyTo');
    // 30.15 - 30.15 x 0.4: unchanged until the engine confirms
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('18.09');
  });

  describe('refusals keep the order and its margin as they were', () => {
    function expectKept(h: ReturnType<typeof resting>) {
      const order = h.book.account(ALICE).order(oid(1));
      expect(order?.frozen.toFixed()).toBe('30.15');
      expect(order?.quantity.toFixed()).toBe('0.01');
      expect(h.book.account(ALICE).hasActiveClientOrderId('c1')).toBe(true);
      expect(h.p.openOrder(oid(1))).toMatchObject({ status: 'NEW', price: '60000.0' });
    }

    it.each([
      ['an unknown order', amend(oid(9), 'BUY', '59000', '0.01')],
      ["another user's order", amend(oid(1), 'BUY', '59000', '0.01', BOB)],
    ])('ORDER_NOT_MODIFIABLE for %s', (_, command) => {
      const h = resting();
      const out = h.run(command, { reply: true });
      expect(out.reply).toEqual({
        ok: false,
        error: { reason: 'ORDER_NOT_MODIFIABLE', msg: 'no open order with this id' },
      });
      expect(out.engineCommands).toEqual([]);
      expectKept(h);
    });

    it('ORDER_NOT_MODIFIABLE for an order of another symbol than the one sent', () => {
      const h = resting();
      h.run(newOrder(2, { symbol: 'ETHUSDT', price: '3500' }));
      expect(h.run(amend(oid(2), 'BUY', '3400', '0.01')).reply).toEqual({
        ok: false,
        error: { reason: 'ORDER_NOT_MODIFIABLE', msg: 'no open order with this id' },
      });
    });

    it('SIDE_MISMATCH when the side differs from the order', () => {
      const h = resting();
      const out = h.run(amend(oid(1), 'SELL', '59000', '0.01'));
      expect(out.reply).toEqual({
        ok: false,
        error: { reason: 'SIDE_MISMATCH', msg: 'side does not match the order' },
      });
      expectKept(h);
    });

    it('ORDER_NOT_MODIFIABLE for a trigger order', () => {
      const h = resting();
      h.run(markPrice('60000'));
      h.run(triggerOrder(2, 'STOP', 'BUY', '61000', { price: '61100' }));
      expect(h.run(amend(oid(2), 'BUY', '61200', '0.01')).reply).toEqual({
        ok: false,
        error: { reason: 'ORDER_NOT_MODIFIABLE', msg: 'only LIMIT orders can be modified' },
      });
      expect(h.p.triggers.get(oid(2))).toBeDefined();
    });

    it('ORDER_NOT_MODIFIABLE when the new quantity is not above what executed', () => {
      const h = resting();
      h.run(makerFillOfOrder1('0.004', 7));
      expect(h.run(amend(oid(1), 'BUY', '59000', '0.004')).reply).toEqual({
        ok: false,
        error: { reason: 'ORDER_NOT_MODIFIABLE', msg: 'the new quantity is not above the executed quantity' },
      });
      // 30.15 - 30.15 x 0.4
      expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('18.09');
    });

    it('the pre-trade refusal (MARGIN_INSUFFICIENT), with the old margin back in place', () => {
      const h = resting();
      const out = h.run(amend(oid(1), 'BUY', '60000', '1'), { reply: true });
      // 1 x 60000 / 20 x 1.005 against the 1000 available once the old order's margin is set aside
      expect(out.reply).toEqual({
        ok: false,
        error: { reason: 'MARGIN_INSUFFICIENT', msg: 'margin 3015 above available balance 1000' },
      });
      expect(out.engineCommands).toEqual([]);
      expect(out.accountEvents).toEqual([]);
      expectKept(h);
      expect(h.book.balances(ALICE).availableBalance.toFixed()).toBe('969.85');
    });
  });
});
