import { Money } from '../money/money';
import { ALGO_STATUSES, isAlgoOpen, nextAlgoStatus } from './algo-status';
import {
  closePositionQuantity,
  isExpiredAt,
  isGoodTillDateFarEnough,
  isPriceProtectHeld,
  MIN_GOOD_TILL_MS,
} from './algo-rules';
import { OrderCounter } from './order-limits';
import {
  isValidCallbackRate,
  trackTrailingStop,
  type TrailingStop,
  trailingTriggerPrice,
} from './trailing-stop';

const m = (v: string) => new Money(v);

/** Marks applied in turn; the index of the mark that fires, or -1. */
function firesAt(t: TrailingStop, marks: string[]): number {
  let s = t;
  for (let i = 0; i < marks.length; i++) {
    const r = trackTrailingStop(s, m(marks[i]!));
    if (r.fire) return i;
    s = r.state;
  }
  return -1;
}

describe('algo order states', () => {
  it.each([
    ['NEW', 'TRIGGER', 'TRIGGERED'],
    ['NEW', 'CANCEL', 'CANCELED'],
    ['NEW', 'EXPIRE', 'EXPIRED'],
    ['NEW', 'FAIL', 'FAILED'],
    ['TRIGGERED', 'FINISH', 'FINISHED'],
    ['TRIGGERED', 'FAIL', 'FAILED'],
    ['CANCELED', 'CANCEL', 'CANCELED'],
  ] as const)('%s --%s--> %s', (from, t, to) => {
    expect(nextAlgoStatus(from, t)).toBe(to);
  });

  it.each([
    ['TRIGGERED', 'CANCEL'],
    ['FINISHED', 'CANCEL'],
    ['EXPIRED', 'CANCEL'],
    ['FAILED', 'CANCEL'],
    ['NEW', 'FINISH'],
    ['CANCELED', 'TRIGGER'],
    ['EXPIRED', 'TRIGGER'],
    ['FINISHED', 'EXPIRE'],
  ] as const)('%s does not take %s', (from, t) => {
    expect(nextAlgoStatus(from, t)).toBeUndefined();
  });

  it('only NEW is open', () => {
    expect(ALGO_STATUSES.filter(isAlgoOpen)).toEqual(['NEW']);
  });
});

describe('trailing stop', () => {
  const sell: TrailingStop = { side: 'SELL', activatePrice: m('100'), callbackRate: m('1') };
  const buy: TrailingStop = { side: 'BUY', activatePrice: m('100'), callbackRate: m('2') };

  it('accepts callback rates from 0.1 to 10 percent, both included', () => {
    expect(['0.1', '1', '10'].map((v) => isValidCallbackRate(m(v)))).toEqual([true, true, true]);
    expect(['0.09', '10.01', '0', '-1'].map((v) => isValidCallbackRate(m(v)))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('SELL: waits for the activation price, follows the high, fires at the callback exactly', () => {
    // 99 does not activate; 100 activates (extreme 100); 110 new high -> fires at 108.9.
    expect(firesAt(sell, ['99', '95', '100', '110', '109', '108.91'])).toBe(-1);
    expect(firesAt(sell, ['99', '100', '110', '109', '108.9'])).toBe(4);
    const activated = trackTrailingStop(sell, m('105')).state;
    expect(activated.extreme?.toFixed()).toBe('105');
    expect(trailingTriggerPrice(activated)?.toFixed()).toBe('103.95');
    expect(trailingTriggerPrice(sell)).toBeUndefined();
  });

  it('SELL: a drop before activation does not fire', () => {
    expect(firesAt(sell, ['90', '80'])).toBe(-1);
  });

  it('BUY: activates at or below, follows the low, fires callbackRate above it', () => {
    expect(firesAt(buy, ['101', '100', '90', '91.79'])).toBe(-1);
    expect(firesAt(buy, ['101', '100', '90', '91.8'])).toBe(3);
    expect(firesAt(buy, ['150', '120'])).toBe(-1);
  });

  it('the activating mark never fires by itself', () => {
    const r = trackTrailingStop(sell, m('100'));
    expect(r.fire).toBe(false);
    expect(r.state.extreme?.toFixed()).toBe('100');
  });
});

describe('GTD', () => {
  it('goodTillDate must be at least 600 s ahead', () => {
    expect(isGoodTillDateFarEnough(1_000 + MIN_GOOD_TILL_MS, 1_000)).toBe(true);
    expect(isGoodTillDateFarEnough(999 + MIN_GOOD_TILL_MS, 1_000)).toBe(false);
    expect(isGoodTillDateFarEnough(Number.NaN, 1_000)).toBe(false);
  });

  it('expires at the first clock time at or after goodTillDate', () => {
    expect(isExpiredAt(5_000, 4_999)).toBe(false);
    expect(isExpiredAt(5_000, 5_000)).toBe(true);
    expect(isExpiredAt(undefined, 9e12)).toBe(false);
  });
});

describe('priceProtect', () => {
  it('holds while last and mark are further apart than the threshold', () => {
    expect(isPriceProtectHeld(m('100'), m('106'), m('0.05'))).toBe(true);
    expect(isPriceProtectHeld(m('100'), m('94'), m('0.05'))).toBe(true);
    expect(isPriceProtectHeld(m('100'), m('105'), m('0.05'))).toBe(false);
    expect(isPriceProtectHeld(m('100'), m('100'), m('0.05'))).toBe(false);
  });

  it('does not hold without a last price', () => {
    expect(isPriceProtectHeld(m('100'), undefined, m('0.05'))).toBe(false);
    expect(isPriceProtectHeld(m('100'), m('0'), m('0.05'))).toBe(false);
  });
});

describe('closePosition sizing', () => {
  it('a SELL closes the whole long, a BUY the whole short, as they are at firing', () => {
    expect(closePositionQuantity('SELL', m('0.3'))?.toFixed()).toBe('0.3');
    expect(closePositionQuantity('BUY', m('-0.25'))?.toFixed()).toBe('0.25');
  });

  it('has nothing to close without a position on the other side', () => {
    expect(closePositionQuantity('SELL', undefined)).toBeUndefined();
    expect(closePositionQuantity('SELL', m('0'))).toBeUndefined();
    expect(closePositionQuantity('SELL', m('-1'))).toBeUndefined();
    expect(closePositionQuantity('BUY', m('1'))).toBeUndefined();
  });
});

describe('OrderCounter', () => {
  it('counts per key and says when one more would pass the limit', () => {
    const c = new OrderCounter();
    const k = OrderCounter.key('u1', 'BTCUSDT');
    c.add(k);
    c.add(k);
    expect(c.count(k)).toBe(2);
    expect(c.isFull(k, 2)).toBe(true);
    expect(c.isFull(k, 3)).toBe(false);
    expect(c.isFull(OrderCounter.key('u1', 'ETHUSDT'), 1)).toBe(false);
    c.remove(k);
    c.remove(k);
    expect(c.count(k)).toBe(0);
  });
});
