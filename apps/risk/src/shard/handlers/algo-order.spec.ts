import type { AlgoOrderRecord } from '@perp/contracts';
import { RiskPartition } from '../risk-partition';
import { cancelAlgo, cancelAllAlgo, clockTick, newAlgo } from './__fixtures__/algo-orders';
import { canceled, copy } from './__fixtures__/engine-events';
import {
  ALICE,
  bookFill,
  chain,
  cmd,
  deposit,
  devnetMarkets,
  markPrice,
  RiskHarness,
  riskHarness,
  T0,
  triggerOrder,
} from './__fixtures__/risk-context';

/** ALICE with 1000 USDT and a BTCUSDT mark of 60000. */
function funded(h = riskHarness()) {
  h.run(deposit(ALICE, '1000'));
  h.run(markPrice('60000'));
  return h;
}

function place(h: RiskHarness, ...args: Parameters<typeof newAlgo>): AlgoOrderRecord {
  const out = h.run(...[newAlgo(...args)], { reply: true });
  expect(out.reply).toMatchObject({ ok: true });
  return out.reply!.result as AlgoOrderRecord;
}

const status = (h: RiskHarness, algoId: number) => h.p.algos.find(ALICE, algoId)?.algoStatus;
const mark = (price: string, time = T0, lastPrice?: string) => ({
  ...markPrice(price, 'BTCUSDT', time),
  ...(lastPrice ? { lastPrice } : {}),
});

describe('algo orders in the risk shard', () => {
  it('places a NEW conditional order that fires as its order when the mark reaches it, then FINISHED', () => {
    const h = funded();
    const a = place(h, 'sl-1', 'STOP_MARKET', 'BUY', { triggerPrice: '61000' });
    expect(a).toMatchObject({
      algoStatus: 'NEW',
      algoType: 'CONDITIONAL',
      orderType: 'STOP_MARKET',
      triggerPrice: '61000.0',
      quantity: '0.010',
      activatePrice: null,
      callbackRate: null,
    });
    expect(h.p.triggers.size).toBe(1);
    expect(h.run(mark('60999.9')).engineCommands).toEqual([]);
    const out = h.run(mark('61000', T0 + 10));
    expect(out.engineCommands).toMatchObject([
      { type: 'order.place', orderType: 'MARKET', quantity: '0.01' },
    ]);
    const fired = h.p.algos.find(ALICE, a.algoId)!;
    expect(fired).toMatchObject({ algoStatus: 'TRIGGERED', triggerTime: T0 + 10 });
    expect(h.p.openOrder(fired.actualOrderId)).toMatchObject({ type: 'MARKET', origType: 'STOP_MARKET' });
    expect(out.accountEvents.filter((e) => e.type === 'algoOrder')).toHaveLength(1);
    h.run(copy(canceled(ALICE, fired.actualOrderId), 5));
    expect(status(h, a.algoId)).toBe('FINISHED');
  });

  it('refuses a trigger the mark already reached, and without a mark', () => {
    const h = funded();
    expect(
      h.run(newAlgo('x', 'TAKE_PROFIT_MARKET', 'SELL', { triggerPrice: '59000' }), { reply: true }).reply,
    ).toMatchObject({ ok: false, error: { reason: 'WOULD_TRIGGER_IMMEDIATELY' } });
    expect(
      h.run(newAlgo('y', 'STOP_MARKET', 'BUY', { symbol: 'ETHUSDT', triggerPrice: '4000' }), { reply: true })
        .reply,
    ).toMatchObject({ ok: false, error: { reason: 'NO_MARK_PRICE' } });
  });

  it('trailing SELL: activation defaults to the mark, follows the high, fires at the callback', () => {
    const h = funded();
    const a = place(h, 'ts', 'TRAILING_STOP_MARKET', 'SELL', { callbackRate: '1' });
    expect(a).toMatchObject({ activatePrice: '60000.0', callbackRate: '1', triggerPrice: '60000.0' });
    h.run(mark('62000'));
    // 62000 x 0.99 = 61380: one tick above does not fire.
    expect(h.run(mark('61380.1')).engineCommands).toEqual([]);
    const out = h.run(mark('61380'));
    expect(out.engineCommands).toMatchObject([{ side: 'SELL', orderType: 'MARKET' }]);
    expect(status(h, a.algoId)).toBe('TRIGGERED');
  });

  it('trailing BUY with an activation price waits for it', () => {
    const h = funded();
    const a = place(h, 'tb', 'TRAILING_STOP_MARKET', 'BUY', { callbackRate: '2', activatePrice: '59000' });
    expect(h.run(mark('61300')).engineCommands).toEqual([]);
    h.run(mark('58000'));
    // 58000 x 1.02 = 59160.
    expect(h.run(mark('59159.9')).engineCommands).toEqual([]);
    expect(h.run(mark('59160')).engineCommands).toHaveLength(1);
    expect(status(h, a.algoId)).toBe('TRIGGERED');
  });

  it('GTD: expires on the first clock tick at or after goodTillDate', () => {
    const h = funded();
    const until = T0 + 3_600_000;
    const a = place(h, 'gtd', 'STOP_MARKET', 'BUY', {
      triggerPrice: '61000',
      timeInForce: 'GTD',
      goodTillDate: until,
    });
    expect(h.run(clockTick(until - 1)).accountEvents).toEqual([]);
    const out = h.run(clockTick(until));
    expect(out.accountEvents).toMatchObject([{ type: 'algoOrder', algo: { algoStatus: 'EXPIRED' } }]);
    expect(h.p.triggers.size).toBe(0);
    expect(h.run(mark('62000')).engineCommands).toEqual([]);
    expect(status(h, a.algoId)).toBe('EXPIRED');
  });

  it('priceProtect holds the trigger while last and mark diverge beyond triggerProtect', () => {
    const h = funded();
    const a = place(h, 'pp', 'STOP_MARKET', 'BUY', { triggerPrice: '61000', priceProtect: true });
    expect(h.run(mark('61000', T0, '65000')).engineCommands).toEqual([]);
    expect(status(h, a.algoId)).toBe('NEW');
    expect(h.run(mark('61000', T0, '61500')).engineCommands).toHaveLength(1);
    expect(status(h, a.algoId)).toBe('TRIGGERED');
  });

  it('closePosition sizes the order from the position at firing, and FAILS with none', () => {
    const h = funded();
    bookFill(h, ALICE, 'BUY', '0.01', 1);
    const a = place(h, 'cp', 'STOP_MARKET', 'SELL', {
      triggerPrice: '59000',
      closePosition: true,
      quantity: undefined,
    });
    expect(a.quantity).toBe('0');
    bookFill(h, ALICE, 'BUY', '0.02', 2);
    const out = h.run(mark('59000'));
    // The mark also sends the position's ADL score (adl.scores) after the fired order.
    expect(out.engineCommands.filter((c) => c.type === 'order.place')).toMatchObject([
      { side: 'SELL', quantity: '0.03', reduceOnly: true },
    ]);
    const none = funded();
    const b = place(none, 'cp2', 'STOP_MARKET', 'SELL', {
      triggerPrice: '59000',
      closePosition: true,
      quantity: undefined,
    });
    expect(none.run(mark('58000')).engineCommands).toEqual([]);
    expect(none.p.algos.find(ALICE, b.algoId)).toMatchObject({
      algoStatus: 'FAILED',
      reason: 'no position to close',
    });
  });

  it('an order refused by pre-trade at firing ends FAILED', () => {
    const h = funded();
    const a = place(h, 'big', 'STOP_MARKET', 'BUY', { triggerPrice: '61000', quantity: '0.5' });
    const out = h.run(mark('61000'));
    expect(out.engineCommands).toEqual([]);
    expect(h.p.algos.find(ALICE, a.algoId)).toMatchObject({ algoStatus: 'FAILED', triggerTime: T0 });
  });

  it('cancel: NEW to CANCELED, again succeeds, a triggered one is done, an unknown one is not found', () => {
    const h = funded();
    const a = place(h, 'c1', 'STOP_MARKET', 'BUY', { triggerPrice: '61000' });
    const b = place(h, 'c2', 'STOP_MARKET', 'BUY', { triggerPrice: '60500' });
    expect(h.run(cancelAlgo({ clientAlgoId: 'c1' }), { reply: true }).reply).toMatchObject({
      ok: true,
      result: { algoId: a.algoId, algoStatus: 'CANCELED' },
    });
    expect(h.p.triggers.size).toBe(1);
    expect(h.run(cancelAlgo({ algoId: a.algoId }), { reply: true }).reply).toMatchObject({
      ok: true,
      result: { algoStatus: 'CANCELED' },
    });
    h.run(mark('60600'));
    expect(h.run(cancelAlgo({ algoId: b.algoId }), { reply: true }).reply).toMatchObject({
      ok: false,
      error: { reason: 'ALGO_ORDER_DONE' },
    });
    expect(h.run(cancelAlgo({ algoId: 12345 }), { reply: true }).reply).toMatchObject({
      ok: false,
      error: { reason: 'ORDER_NOT_FOUND' },
    });
  });

  it('cancel all: every NEW algo order of the symbol', () => {
    const h = funded();
    place(h, 'a', 'STOP_MARKET', 'BUY', { triggerPrice: '61000' });
    place(h, 'b', 'TRAILING_STOP_MARKET', 'SELL', { callbackRate: '5' });
    h.run(cancelAllAlgo());
    expect(h.p.algos.openOf(ALICE)).toEqual([]);
    expect(h.p.triggers.size).toBe(0);
    expect(h.p.waitingTriggerCount(ALICE, 'BTCUSDT')).toBe(0);
  });

  it('counts waiting triggers (both kinds) against maxAlgoOrders and open orders against maxOpenOrders', () => {
    const limited = devnetMarkets();
    const btc = limited.find('BTCUSDT')!;
    Object.assign(btc, { maxAlgoOrders: 2, maxOpenOrders: 3 });
    const h = funded(new RiskHarness(limited));
    place(h, 'a', 'STOP_MARKET', 'BUY', { triggerPrice: '61000' });
    h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '62000'));
    expect(h.p.waitingTriggerCount(ALICE, 'BTCUSDT')).toBe(2);
    expect(
      h.run(newAlgo('b', 'STOP_MARKET', 'BUY', { triggerPrice: '63000' }), { reply: true }).reply,
    ).toMatchObject({ ok: false, error: { reason: 'MAX_ALGO_ORDERS' } });
    // A LIMIT is an open order too: 3 now.
    h.run(
      cmd({ ...triggerOrder(2, 'STOP_MARKET', 'BUY', '1'), orderType: 'LIMIT', price: '50000' } as never),
    );
    expect(h.p.openOrderCount(ALICE, 'BTCUSDT')).toBe(3);
    expect(h.run(triggerOrder(3, 'STOP_MARKET', 'BUY', '64000'), { reply: true }).reply).toMatchObject({
      ok: false,
      error: { reason: 'MAX_OPEN_ORDERS' },
    });
  });

  it('survives a snapshot: waiting, trailing and ended algo orders restore and fire the same', () => {
    const h = funded();
    const a = place(h, 'w', 'STOP_MARKET', 'BUY', { triggerPrice: '63000' });
    const t = place(h, 't', 'TRAILING_STOP_MARKET', 'SELL', { callbackRate: '1' });
    h.run(mark('62000'));
    const c = place(h, 'c', 'STOP_MARKET', 'BUY', { triggerPrice: '65000' });
    h.run(cancelAlgo({ algoId: c.algoId }));
    const options = {
      feeTiers: chain.feeTiers,
      asset: chain.settlementAsset,
    };
    const restored = RiskPartition.deserialize(0, h.p.serialize(), h.markets, options);
    expect(restored.algos.toState()).toEqual(h.p.algos.toState());
    expect(restored.waitingTriggerCount(ALICE, 'BTCUSDT')).toBe(2);
    expect(restored.openOrderCount(ALICE, 'BTCUSDT')).toBe(h.p.openOrderCount(ALICE, 'BTCUSDT'));
    expect(restored.algos.find(ALICE, c.algoId)?.algoStatus).toBe('CANCELED');
    expect(restored.algos.trailingOf('BTCUSDT')[0]?.trailing?.extreme?.toFixed()).toBe('62000');
    expect(restored.triggers.get(h.p.algos.get(a.algoId)!.command.orderId)?.algoId).toBe(a.algoId);
    expect(restored.algos.get(t.algoId)?.record.algoStatus).toBe('NEW');
  });
});
