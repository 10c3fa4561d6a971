import { Money } from '../money/money';
import type { Side } from './order';
import {
  applyPositionTrade,
  positionClosingQty,
  entryPrice,
  signedCost,
  unrealizedPnl,
  type AccountPosition,
} from './position';

const m = (v: string) => new Money(v);
let n = 0;
const trade = (p: AccountPosition | undefined, side: Side, qty: string, price: string, leverage = 10) =>
  applyPositionTrade(p, {
    symbol: 'BTCUSDT',
    side,
    qty: m(qty),
    price: m(price),
    leverage,
    tradeId: `t${++n}`,
    time: n,
  });

describe('applyPositionTrade', () => {
  it('opens, then averages the entry price on increase', () => {
    const a = trade(undefined, 'BUY', '1', '100');
    expect(a.openedQty.toFixed()).toBe('1');
    expect(a.closedQty.toFixed()).toBe('0');
    expect(a.addedMargin.toFixed()).toBe('10');
    const b = trade(a.position, 'BUY', '2', '101');
    const p = b.position!;
    expect(p.size.toFixed()).toBe('3');
    expect(p.cost.toFixed()).toBe('302');
    expect(entryPrice(p).toFixed()).toBe('100.666666666666666666');
    expect(p.margin.toFixed()).toBe('30.2'); // 10 + 202 / 10
    expect(p.id).toBe(a.position!.id);
  });

  it('prices the entry of the size and cost a position holds now, also after they are replaced', () => {
    const p = { ...trade(undefined, 'SELL', '2', '100').position! };
    expect(entryPrice(p).toFixed()).toBe('100');
    p.cost = m('201');
    expect(entryPrice(p).toFixed()).toBe('100.5');
    p.size = m('-3');
    expect(entryPrice(p).toFixed()).toBe('67');
  });

  it('realizes PnL on a partial close and on a flip (hand-computed)', () => {
    const opened = trade(trade(undefined, 'BUY', '1', '100').position, 'BUY', '2', '101').position!;

    // Sell 1 @ 110: cost released = 302 / 3 = 100.66666667 (8 decimals, half-even).
    const partial = trade(opened, 'SELL', '1', '110');
    expect(partial.closedQty.toFixed()).toBe('1');
    expect(partial.realizedPnl.toFixed()).toBe('9.33333333'); // 110 - 100.66666667
    expect(partial.releasedMargin.toFixed()).toBe('10.06666666'); // 30.2 / 3, rounded down
    const rest = partial.position!;
    expect(rest.size.toFixed()).toBe('2');
    expect(rest.cost.toFixed()).toBe('201.33333333');
    expect(rest.margin.toFixed()).toBe('20.13333334');

    // Sell 3 @ 90: closes 2 (the rest of the cost), opens a 1 short at 90.
    const flip = trade(rest, 'SELL', '3', '90');
    expect(flip.closedQty.toFixed()).toBe('2');
    expect(flip.openedQty.toFixed()).toBe('1');
    expect(flip.realizedPnl.toFixed()).toBe('-21.33333333'); // 180 - 201.33333333
    expect(flip.releasedMargin.toFixed()).toBe('20.13333334');
    const short = flip.position!;
    expect(short.size.toFixed()).toBe('-1');
    expect(short.cost.toFixed()).toBe('90');
    expect(short.margin.toFixed()).toBe('9');
    expect(short.id).not.toBe(opened.id); // a flip opens a new position

    // Lifetime PnL of the long is exact: (110 + 180) - (100 + 202) = -12.
    expect(partial.realizedPnl.plus(flip.realizedPnl).toFixed()).toBe('-12');
  });

  it('realizes a short PnL and closes to flat', () => {
    const short = trade(undefined, 'SELL', '2', '50').position!;
    const half = trade(short, 'BUY', '0.5', '40');
    expect(half.realizedPnl.toFixed()).toBe('5'); // (50 - 40) x 0.5
    expect(half.position!.size.toFixed()).toBe('-1.5');
    const flat = trade(half.position, 'BUY', '1.5', '60');
    expect(flat.realizedPnl.toFixed()).toBe('-15'); // (50 - 60) x 1.5
    expect(flat.position).toBeUndefined();
    expect(flat.openedQty.isZero()).toBe(true);
  });

  it('releases isolated collateral pro rata on reduce', () => {
    const p = { ...trade(undefined, 'BUY', '4', '100').position!, collateral: m('10') };
    const r = trade(p, 'SELL', '1', '100');
    expect(r.releasedCollateral.toFixed()).toBe('2.5');
    expect(r.position!.collateral.toFixed()).toBe('7.5');
  });

  it('rejects non-positive quantities and prices', () => {
    expect(() => trade(undefined, 'BUY', '0', '100')).toThrow();
    expect(() => trade(undefined, 'BUY', '1', '0')).toThrow();
  });
});

describe('unrealizedPnl, positionClosingQty, signedCost', () => {
  const long = trade(trade(undefined, 'BUY', '1', '100').position, 'BUY', '2', '101').position!;
  const short = trade(undefined, 'SELL', '1', '90').position!;

  it('marks to the mark price', () => {
    expect(unrealizedPnl(long, m('105')).toFixed()).toBe('13'); // 315 - 302
    expect(unrealizedPnl(short, m('100')).toFixed()).toBe('-10'); // 90 - 100
  });

  it('closes at most the opposite position', () => {
    expect(positionClosingQty(long, 'SELL', m('5')).toFixed()).toBe('3');
    expect(positionClosingQty(long, 'SELL', m('2')).toFixed()).toBe('2');
    expect(positionClosingQty(long, 'BUY', m('2')).toFixed()).toBe('0');
    expect(positionClosingQty(undefined, 'SELL', m('2')).toFixed()).toBe('0');
    expect(positionClosingQty(short, 'BUY', m('2')).toFixed()).toBe('1');
  });

  it('signs the cost by direction', () => {
    expect(signedCost(long).toFixed()).toBe('302');
    expect(signedCost(short).toFixed()).toBe('-90');
  });
});
