import {
  ALICE,
  cancel,
  deposit,
  devnetMarkets,
  markPrice,
  newOrder,
  oid,
  riskHarness,
  T0,
  triggerOrder,
} from './__fixtures__/risk-context';
import { commandResult, copy } from './__fixtures__/engine-events';

/** ALICE with 1000 USDT. */
function funded(markets = devnetMarkets()) {
  const h = riskHarness(markets);
  h.run(deposit(ALICE, '1000'));
  return h;
}

describe('new order handler', () => {
  describe('a LIMIT or MARKET order', () => {
    it('freezes its margin, records it NEW and forwards order.place with the input place and reply-to', () => {
      const h = funded();
      const out = h.run(newOrder(1, { quantity: '0.0105' }), { reply: true });
      // lot-floored to 0.01; margin 0.01 x 60000 / 20 x 1.005
      expect(out.engineCommands).toEqual([
        {
          id: h.outId(0),
          v: 1,
          time: T0,
          origin: { partition: 0, offset: '1', index: 0 },
          replyTo: h.replyTo(),
          type: 'order.place',
          orderId: oid(1),
          clientOrderId: 'c1',
          user: ALICE,
          symbol: 'BTCUSDT',
          side: 'BUY',
          orderType: 'LIMIT',
          timeInForce: 'GTC',
          quantity: '0.01',
          price: '60000',
          reduceOnly: false,
          workingType: 'CONTRACT_PRICE',
          priceProtect: false,
          selfTradePreventionMode: 'EXPIRE_TAKER',
          frozenMargin: '30.15',
        },
      ]);
      // The engine answers through command.result, not this input.
      expect(out.reply).toBeUndefined();
      const record = h.p.openOrder(oid(1));
      expect(record).toMatchObject({
        status: 'NEW',
        type: 'LIMIT',
        price: '60000.0',
        origQty: '0.010',
        user: ALICE,
      });
      expect(out.accountEvents).toEqual([
        { type: 'order', user: ALICE, order: record },
        { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000', frozen: '30.15' },
      ]);
      expect([...out.users]).toEqual([ALICE]);
      expect(h.book.account(ALICE).order(oid(1))?.frozen.toFixed()).toBe('30.15');
      expect(h.p.triggers.size).toBe(0);
    });

    it('carries no replyTo when the input had none', () => {
      const h = funded();
      const [place] = h.run(newOrder(1)).engineCommands;
      expect(place).not.toHaveProperty('replyTo');
      expect(place).toMatchObject({ id: h.outId(0), origin: { partition: 0, offset: '1', index: 0 } });
    });

    it('a MARKET order is margined at the mark price and forwarded without a price', () => {
      const h = funded();
      h.run(markPrice('62000'));
      const out = h.run(newOrder(1, { orderType: 'MARKET', price: undefined }));
      const [place] = out.engineCommands;
      // 0.01 x 62000 / 20 x 1.005
      expect(place).toMatchObject({ type: 'order.place', orderType: 'MARKET', frozenMargin: '31.155' });
      expect(place).not.toHaveProperty('price');
      expect(h.p.openOrder(oid(1))).toMatchObject({ type: 'MARKET', price: '0.0' });
    });

    it('refuses a MARKET order without a mark price with NO_MARK_PRICE', () => {
      const h = funded();
      const out = h.run(newOrder(1, { orderType: 'MARKET', price: undefined }), { reply: true });
      expect(out.reply).toEqual({
        ok: false,
        error: { reason: 'NO_MARK_PRICE', msg: 'reference price (markPrice) must be above 0' },
      });
      expect(out.engineCommands).toEqual([]);
    });
  });

  describe('refusals leave no order, margin or output', () => {
    function expectRefused(
      h: ReturnType<typeof funded>,
      out: ReturnType<typeof h.run>,
      reason: string,
      msg: string,
    ) {
      expect(out.reply).toEqual({ ok: false, error: { reason, msg } });
      expect(out.replyTo).toEqual(h.replyTo());
      expect(out.engineCommands).toEqual([]);
      expect(out.accountEvents).toEqual([]);
      expect(out.users.size).toBe(0);
    }

    it('INVALID_SYMBOL for a symbol with no market', () => {
      const h = funded();
      expectRefused(
        h,
        h.run(newOrder(1, { symbol: 'XRPUSDT' }), { reply: true }),
        'INVALID_SYMBOL',
        'no market XRPUSDT',
      );
      expect(h.p.record(oid(1))).toBeUndefined();
    });

    it('MARKET_NOT_TRADING for a halted market', () => {
      const h = funded(devnetMarkets({ BTCUSDT: 'HALT' }));
      const out = h.run(newOrder(1), { reply: true });
      expectRefused(h, out, 'MARKET_NOT_TRADING', 'BTCUSDT is not trading');
      expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('0');
      // Other markets still trade.
      expect(h.run(newOrder(2, { symbol: 'ETHUSDT', price: '3500' })).engineCommands).toHaveLength(1);
    });

    it('DUPLICATE_ORDER_ID for an id open or recently closed', () => {
      const h = funded();
      h.run(newOrder(1));
      const dup = h.run(newOrder(1, { clientOrderId: 'other' }), { reply: true });
      expectRefused(h, dup, 'DUPLICATE_ORDER_ID', 'order id already in use');
      // The waiting trigger is cancelled here, which closes its record: the id stays taken.
      h.run(markPrice('60000'));
      h.run(triggerOrder(2, 'STOP_MARKET', 'BUY', '61000'));
      h.run(cancel({ orderId: oid(2) }));
      expect(h.p.openOrder(oid(2))).toBeUndefined();
      expectRefused(
        h,
        h.run(newOrder(2, { clientOrderId: 'x' }), { reply: true }),
        'DUPLICATE_ORDER_ID',
        'order id already in use',
      );
      expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('30.15');
    });

    it('DUPLICATE_CLIENT_ORDER_ID for the client id of an open order or of a waiting trigger', () => {
      const h = funded();
      h.run(markPrice('60000'));
      h.run(newOrder(1, { clientOrderId: 'resting' }));
      h.run(triggerOrder(2, 'STOP_MARKET', 'BUY', '61000', { clientOrderId: 'waiting' }));
      const msg = 'newClientOrderId is used by an active order';
      expectRefused(
        h,
        h.run(newOrder(3, { clientOrderId: 'resting' }), { reply: true }),
        'DUPLICATE_CLIENT_ORDER_ID',
        msg,
      );
      expectRefused(
        h,
        h.run(newOrder(4, { clientOrderId: 'waiting' }), { reply: true }),
        'DUPLICATE_CLIENT_ORDER_ID',
        msg,
      );
      // Another user may use the same client id.
      const carol = '0x00000000000000000000000000000000000000cc';
      h.run(deposit(carol, '100'));
      expect(h.run(newOrder(5, { clientOrderId: 'resting', user: carol })).engineCommands).toHaveLength(1);
    });

    it('DUPLICATE_CLIENT_ORDER_ID while the first order is still in flight in the engine (a resubmission after a timeout)', () => {
      const h = funded();
      // Forwarded; the engine has not answered (paused, failing over): the gateway timed out.
      expect(h.run(newOrder(1, { clientOrderId: 'retry-me' })).engineCommands).toHaveLength(1);
      // The client sends it again under a new order id (the gateway makes one per request).
      const again = h.run(newOrder(2, { clientOrderId: 'retry-me' }), { reply: true });
      expectRefused(h, again, 'DUPLICATE_CLIENT_ORDER_ID', 'newClientOrderId is used by an active order');
      expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('30.15');
      // Once the engine refused the first (a terminal state) the id may be used again.
      const error = { reason: 'POST_ONLY_WOULD_TAKE' as const, msg: 'would take' };
      h.run(copy(commandResult({ orderId: oid(1), ok: false, error }), 10));
      expect(h.run(newOrder(3, { clientOrderId: 'retry-me' })).engineCommands).toHaveLength(1);
    });

    it('MARGIN_INSUFFICIENT when the available balance is below the margin', () => {
      const h = riskHarness();
      h.run(deposit(ALICE, '30.14'));
      expectRefused(
        h,
        h.run(newOrder(1), { reply: true }),
        'MARGIN_INSUFFICIENT',
        'margin 30.15 above available balance 30.14',
      );
      expect(h.book.account(ALICE).openOrders()).toEqual([]);
      expect(h.p.openOrdersOf(ALICE)).toEqual([]);
      h.run(deposit(ALICE, '0.01', 'top-up'));
      expect(h.run(newOrder(1)).engineCommands).toHaveLength(1);
    });
  });

  describe('a trigger order', () => {
    it('waits here holding no margin, recorded NEW, and is answered at once', () => {
      const h = funded();
      h.run(markPrice('60000'));
      const out = h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '62000'), { reply: true });
      const record = h.p.openOrder(oid(1));
      expect(record).toMatchObject({
        status: 'NEW',
        type: 'STOP_MARKET',
        origType: 'STOP_MARKET',
        stopPrice: '62000.0',
        price: '0.0',
        origQty: '0.010',
      });
      expect(out.reply).toEqual({ ok: true, result: record });
      expect(out.replyTo).toEqual(h.replyTo());
      expect(out.engineCommands).toEqual([]);
      expect(out.accountEvents).toEqual([{ type: 'order', user: ALICE, order: record }]);
      expect([...out.users]).toEqual([ALICE]);
      expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('0');
      expect(h.p.triggers.get(oid(1))).toMatchObject({
        symbol: 'BTCUSDT',
        direction: 'RISE',
        seq: 2,
        user: ALICE,
      });
    });

    it('keeps the command it fires as, quoteOrderQty converted at the stop price', () => {
      const h = funded();
      h.run(markPrice('60000'));
      h.run(
        triggerOrder(1, 'TAKE_PROFIT_MARKET', 'SELL', '62000', {
          quantity: undefined,
          quoteOrderQty: '1250',
        }),
      );
      const waiting = h.p.triggers.get(oid(1));
      // floor(1250 / 62000 / 0.001) lots; a take-profit sells on a rise
      expect(waiting).toMatchObject({
        direction: 'RISE',
        command: { quantity: '0.02', orderType: 'TAKE_PROFIT_MARKET' },
      });
      expect(waiting?.command).not.toHaveProperty('quoteOrderQty');
    });

    it('refuses without a mark price (NO_MARK_PRICE) and when the mark already meets it', () => {
      const h = funded();
      expect(h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '62000')).reply).toEqual({
        ok: false,
        error: { reason: 'NO_MARK_PRICE', msg: 'no mark price for BTCUSDT to evaluate the trigger against' },
      });
      h.run(markPrice('60000'));
      expect(h.run(triggerOrder(1, 'STOP_MARKET', 'SELL', '60000')).reply).toEqual({
        ok: false,
        error: {
          reason: 'WOULD_TRIGGER_IMMEDIATELY',
          msg: 'mark price 60000 is already at or below stopPrice 60000: the order would trigger at once',
        },
      });
      expect(h.p.triggers.size).toBe(0);
      expect(h.p.openOrdersOf(ALICE)).toEqual([]);
    });

    it('refuses a missing stopPrice, or a missing limit price of STOP, with MISSING_PARAMETER', () => {
      const h = funded();
      h.run(markPrice('60000'));
      expect(h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', undefined)).reply).toEqual({
        ok: false,
        error: { reason: 'MISSING_PARAMETER', msg: 'stopPrice is required' },
      });
      expect(h.run(triggerOrder(1, 'STOP', 'BUY', '62000')).reply).toEqual({
        ok: false,
        error: { reason: 'MISSING_PARAMETER', msg: 'price is required' },
      });
      expect(h.p.triggers.size).toBe(0);
    });
  });
});
