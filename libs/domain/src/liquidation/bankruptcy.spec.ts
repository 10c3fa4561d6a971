import { Money } from '../money/money';
import type { AccountPosition } from '../account/position';
import {
  bankruptcyPrice,
  clearanceFee,
  closingSide,
  insuranceReserve,
  insuredLimitPrice,
  toTick,
} from './bankruptcy';

const m = (v: string) => new Money(v);
const position = (size: string, cost: string): AccountPosition => ({
  id: 'p',
  symbol: 'BTCUSDT',
  size: m(size),
  cost: m(cost),
  margin: m('0'),
  collateral: m('0'),
  leverage: 20,
  openedAt: 0,
});

describe('bankruptcy price', () => {
  it('long: (cost - backing) / size, exactly on the tick', () => {
    // 1 BTC bought at 10000 backed by 1000: zero at 9000
    expect(bankruptcyPrice(position('1', '10000'), m('1000'), '0.1').toFixed()).toBe('9000');
  });

  it('long off the tick rounds down (the account pays at least its whole loss)', () => {
    // (10000 - 1000.05) / 1 = 8999.95 -> 8999.9
    expect(bankruptcyPrice(position('1', '10000'), m('1000.05'), '0.1').toFixed()).toBe('8999.9');
  });

  it('short: (cost + backing) / |size|, off the tick rounds up', () => {
    expect(bankruptcyPrice(position('-1', '10000'), m('1000'), '0.1').toFixed()).toBe('11000');
    // (10000 + 1000.05) / 1 = 11000.05 -> 11000.1
    expect(bankruptcyPrice(position('-1', '10000'), m('1000.05'), '0.1').toFixed()).toBe('11000.1');
  });

  it('partial sizes: 2.5 ETH bought at 2000 (cost 5000) backed by 250 -> 1900', () => {
    expect(bankruptcyPrice(position('2.5', '5000'), m('250'), '0.01').toFixed()).toBe('1900');
  });

  it('a negative backing (already under water) puts a long above its entry', () => {
    expect(bankruptcyPrice(position('1', '10000'), m('-50'), '0.1').toFixed()).toBe('10050');
  });

  it('a long backed by more than its cost is floored at one tick', () => {
    expect(bankruptcyPrice(position('1', '10000'), m('20000'), '0.1').toFixed()).toBe('0.1');
  });

  it('closing side: SELL for a long, BUY for a short', () => {
    expect(closingSide(position('1', '1'))).toBe('SELL');
    expect(closingSide(position('-1', '1'))).toBe('BUY');
  });

  it('toTick rounds to the grid, at least one tick', () => {
    expect(toTick(m('12.345'), '0.01', 'down').toFixed()).toBe('12.34');
    expect(toTick(m('12.345'), '0.01', 'up').toFixed()).toBe('12.35');
    expect(toTick(m('0'), '0.01', 'down').toFixed()).toBe('0.01');
  });
});

describe('limit price from the insurance share', () => {
  it('with an empty share the limit is the bankruptcy price', () => {
    expect(insuredLimitPrice('SELL', m('9000'), m('2'), m('0'), '0.1').toFixed()).toBe('9000');
    expect(insuredLimitPrice('BUY', m('11000'), m('2'), m('-5'), '0.1').toFixed()).toBe('11000');
  });

  it('a SELL goes down by share / qty, rounded up to the tick (the fund can pay)', () => {
    // 100 / 2 = 50 below
    expect(insuredLimitPrice('SELL', m('9000'), m('2'), m('100'), '0.1').toFixed()).toBe('8950');
    // 0.15 / 2 = 0.075 below: not a whole tick, so the bankruptcy price
    expect(insuredLimitPrice('SELL', m('9000'), m('2'), m('0.15'), '0.1').toFixed()).toBe('9000');
  });

  it('a BUY goes up by share / qty, rounded down to the tick', () => {
    expect(insuredLimitPrice('BUY', m('11000'), m('1'), m('12.34'), '0.1').toFixed()).toBe('11012.3');
  });

  it('the reserve is the distance beyond bankruptcy times the quantity', () => {
    expect(insuranceReserve('SELL', m('9000'), m('8950'), m('2')).toFixed()).toBe('100');
    expect(insuranceReserve('BUY', m('11000'), m('11012.3'), m('1')).toFixed()).toBe('12.3');
    expect(insuranceReserve('BUY', m('11000'), m('11000'), m('1')).toFixed()).toBe('0');
  });
});

describe('clearance fee', () => {
  it('1.25 % of the notional at the fill price', () => {
    expect(clearanceFee(m('1'), m('9000'), m('1000')).toFixed()).toBe('112.5');
  });

  it('rounded up to 8 decimals', () => {
    // 0.001 x 12345.67 x 0.0125 = 0.154320875
    expect(clearanceFee(m('0.001'), m('12345.67'), m('1')).toFixed()).toBe('0.15432088');
  });

  it('capped by what is left, never negative', () => {
    expect(clearanceFee(m('1'), m('9000'), m('50')).toFixed()).toBe('50');
    expect(clearanceFee(m('1'), m('9000'), m('-3')).toFixed()).toBe('0');
  });
});
