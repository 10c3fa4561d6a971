import { Money } from '@perp/domain';
import { adverseSlippage, checkSlippage, simulateMarketFill } from './slippage';

const m = (v: string | number) => new Money(v);
const level = (price: string, qty: string) => ({ price: m(price), qty: m(qty) });

describe('simulateMarketFill', () => {
  it('walks the levels best first: filled, remaining, average and worst price', () => {
    const s = simulateMarketFill([level('100', '1'), level('101', '2'), level('105', '5')], m('2.5'));
    expect(s.filled.toFixed()).toBe('2.5');
    expect(s.remaining.toFixed()).toBe('0');
    expect(s.worstPrice?.toFixed()).toBe('101');
    // (1 x 100 + 1.5 x 101) / 2.5
    expect(s.averagePrice?.toFixed()).toBe('100.6');
  });

  it('leaves the rest when the levels run out; skips empty levels', () => {
    const s = simulateMarketFill([level('100', '0'), level('101', '1')], m('3'));
    expect(s.filled.toFixed()).toBe('1');
    expect(s.remaining.toFixed()).toBe('2');
    expect(s.worstPrice?.toFixed()).toBe('101');
  });

  it('fills nothing against no level', () => {
    const s = simulateMarketFill([], m('1'));
    expect(s).toEqual({ filled: m(0), remaining: m(1), averagePrice: undefined, worstPrice: undefined });
  });
});

describe('adverseSlippage', () => {
  it('is positive when the price is worse than the mark for the taker, negative when better', () => {
    expect(adverseSlippage('BUY', m(100), m(101)).toFixed()).toBe('0.01');
    expect(adverseSlippage('BUY', m(100), m(99)).toFixed()).toBe('-0.01');
    expect(adverseSlippage('SELL', m(100), m(98)).toFixed()).toBe('0.02');
    expect(adverseSlippage('SELL', m(100), m(102)).toFixed()).toBe('-0.02');
  });
});

describe('checkSlippage', () => {
  const base = { side: 'BUY' as const, mark: m(100), maxSlippage: m('0.01'), completeDepth: true };

  it('passes when the worst level is within max_slippage (exactly at the bound too)', () => {
    const v = checkSlippage({ ...base, quantity: m(2), levels: [level('100', '1'), level('101', '1')] });
    expect(v.ok).toBe(true);
    expect(v.slippage?.toFixed()).toBe('0.01');
  });

  it('refuses when the worst level is beyond max_slippage, naming the price and both percentages', () => {
    const v = checkSlippage({ ...base, quantity: m(2), levels: [level('100', '1'), level('101.5', '1')] });
    expect(v.ok).toBe(false);
    expect(!v.ok && v.message).toBe(
      'expected worst fill price 101.5 is 1.5% from the mark price 100, above max_slippage 1%',
    );
  });

  it('refuses a sell whose bids are too far below the mark', () => {
    const v = checkSlippage({ ...base, side: 'SELL', quantity: m(1), levels: [level('98', '5')] });
    expect(v.ok).toBe(false);
  });

  it('a price better than the mark always passes, even with max_slippage 0', () => {
    const v = checkSlippage({ ...base, maxSlippage: m(0), quantity: m(1), levels: [level('99', '5')] });
    expect(v).toMatchObject({ ok: true });
  });

  it('with only the top visible, an order larger than the top is refused: its worst price is unknown', () => {
    const v = checkSlippage({ ...base, quantity: m(2), levels: [level('100', '1')], completeDepth: false });
    expect(v.ok).toBe(false);
    expect(!v.ok && v.message).toContain('only 1 of 2 can be priced');
    const fits = checkSlippage({
      ...base,
      quantity: m(1),
      levels: [level('100', '1')],
      completeDepth: false,
    });
    expect(fits.ok).toBe(true);
  });

  it('an empty side known to be empty has nothing to fill, so nothing to refuse', () => {
    expect(checkSlippage({ ...base, quantity: m(1), levels: [] }).ok).toBe(true);
  });
});
