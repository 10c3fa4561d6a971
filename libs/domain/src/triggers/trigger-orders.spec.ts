import { AccountBook } from '../account/account-book';
import { BTC, FEE_TIERS, lookup } from '../account/__fixtures__/markets';
import { Money } from '../money/money';
import { isTriggered, triggerDirection, triggeredOrderType, type TriggerOrderType } from './trigger-orders';

const m = (v: string) => new Money(v);

function book(mark?: string) {
  const b = new AccountBook({ markets: lookup(BTC), feeTiers: FEE_TIERS });
  if (mark) b.setMarkPrice('BTCUSDT', m(mark));
  b.deposit('u1', m('1000'), 'd1');
  return b;
}

function trigger(
  type: TriggerOrderType,
  side: 'BUY' | 'SELL',
  stopPrice: string,
  extra: { quantity?: string; quoteOrderQty?: string; price?: string } = { quantity: '0.01' },
) {
  return {
    orderId: 'o1',
    clientOrderId: 'c1',
    symbol: 'BTCUSDT',
    side,
    type,
    stopPrice: m(stopPrice),
    quantity: extra.quantity === undefined ? undefined : m(extra.quantity),
    quoteOrderQty: extra.quoteOrderQty === undefined ? undefined : m(extra.quoteOrderQty),
    price: extra.price === undefined ? undefined : m(extra.price),
  };
}

describe('trigger orders (New Order rule 8)', () => {
  it.each([
    ['STOP', 'BUY', 'RISE'],
    ['STOP_MARKET', 'BUY', 'RISE'],
    ['STOP', 'SELL', 'FALL'],
    ['STOP_MARKET', 'SELL', 'FALL'],
    ['TAKE_PROFIT', 'BUY', 'FALL'],
    ['TAKE_PROFIT_MARKET', 'BUY', 'FALL'],
    ['TAKE_PROFIT', 'SELL', 'RISE'],
    ['TAKE_PROFIT_MARKET', 'SELL', 'RISE'],
  ] as const)('%s %s fires on a %s of the mark', (type, side, direction) => {
    expect(triggerDirection(type, side)).toBe(direction);
  });

  it('fires at the stop price itself, not a tick before', () => {
    expect(isTriggered('RISE', m('100'), m('100'))).toBe(true);
    expect(isTriggered('RISE', m('100'), m('99.9'))).toBe(false);
    expect(isTriggered('FALL', m('100'), m('100'))).toBe(true);
    expect(isTriggered('FALL', m('100'), m('100.1'))).toBe(false);
  });

  it('derives a LIMIT from STOP and TAKE_PROFIT, a MARKET from their MARKET forms', () => {
    expect(triggeredOrderType('STOP')).toBe('LIMIT');
    expect(triggeredOrderType('TAKE_PROFIT')).toBe('LIMIT');
    expect(triggeredOrderType('STOP_MARKET')).toBe('MARKET');
    expect(triggeredOrderType('TAKE_PROFIT_MARKET')).toBe('MARKET');
  });

  it('accepts a trigger the mark has not reached, freezing no margin', () => {
    const b = book('30000');
    const r = b.checkTriggerOrder('u1', trigger('STOP_MARKET', 'BUY', '31000'));
    expect(r).toMatchObject({ ok: true, direction: 'RISE' });
    expect(r.ok && r.quantity.toFixed()).toBe('0.01');
    expect(b.account('u1').frozenMargin().toFixed()).toBe('0');
  });

  it('rejects a trigger already satisfied with WOULD_TRIGGER_IMMEDIATELY', () => {
    const b = book('30000');
    expect(b.checkTriggerOrder('u1', trigger('STOP_MARKET', 'BUY', '30000'))).toMatchObject({
      ok: false,
      reason: 'WOULD_TRIGGER_IMMEDIATELY',
    });
    expect(b.checkTriggerOrder('u1', trigger('TAKE_PROFIT_MARKET', 'BUY', '30500'))).toMatchObject({
      ok: false,
      reason: 'WOULD_TRIGGER_IMMEDIATELY',
    });
    expect(b.checkTriggerOrder('u1', trigger('TAKE_PROFIT_MARKET', 'BUY', '29500')).ok).toBe(true);
  });

  it('rejects without a mark price, before any fill could be evaluated', () => {
    expect(book().checkTriggerOrder('u1', trigger('STOP_MARKET', 'SELL', '29000'))).toMatchObject({
      ok: false,
      reason: 'NO_MARK_PRICE',
    });
  });

  it('applies the shape rules at the reference price: stopPrice for MARKET forms, price otherwise', () => {
    const b = book('30000');
    // quoteOrderQty converts at stopPrice: floor(620 / 31000 / 0.001) x 0.001 = 0.02.
    const r = b.checkTriggerOrder('u1', trigger('STOP_MARKET', 'BUY', '31000', { quoteOrderQty: '620' }));
    expect(r.ok && r.quantity.toFixed()).toBe('0.02');
    expect(b.checkTriggerOrder('u1', trigger('STOP', 'BUY', '31000', { quantity: '0.01' }))).toMatchObject({
      ok: false,
      reason: 'MISSING_PARAMETER',
    });
    expect(
      b.checkTriggerOrder('u1', trigger('STOP', 'BUY', '31000', { quantity: '0.0001', price: '31000' })),
    ).toMatchObject({ ok: false, reason: 'INVALID_QUANTITY' });
  });
});
