import { Money } from '../money/money';
import { type AggFill, aggTradeRow, nextAggTrade, type OpenAggTrade } from './agg-trades';
import type { TradeSide } from './candles';

const T = Date.UTC(2026, 0, 1);
const fill = (
  id: number,
  takerOrderId: string,
  price: string,
  qty: string,
  time = T,
  takerSide: TradeSide = 'BUY',
): AggFill => ({
  id,
  time,
  price: new Money(price),
  qty: new Money(qty),
  takerOrderId,
  takerSide,
});

/** Runs fills through nextAggTrade and returns every aggregate, final or still open, as wire rows. */
function aggregate(fills: AggFill[]) {
  const all: OpenAggTrade[] = [];
  let open: OpenAggTrade | undefined;
  for (const f of fills) {
    const next = nextAggTrade(open, f);
    if (next !== open && next.a === f.id) all.push(next);
    else all[all.length - 1] = next;
    open = next;
  }
  return all.map((a) => aggTradeRow(a));
}

describe('nextAggTrade', () => {
  it('sums consecutive fills of one taker order at one price', () => {
    expect(
      aggregate([fill(7, 'o1', '100', '1'), fill(8, 'o1', '100', '0.5'), fill(10, 'o1', '100.0', '2')]),
    ).toEqual([{ a: 7, p: '100', q: '3.5', f: 7, l: 10, T, m: false }]);
  });

  it('starts a new aggregate on a new price, a new taker order or a new time', () => {
    const rows = aggregate([
      fill(1, 'o1', '100', '1'),
      fill(2, 'o1', '101', '1'), // the taker walked to the next level
      fill(3, 'o2', '101', '1'), // another taker order
      fill(4, 'o2', '101', '1', T + 1), // the same order again later (an amend that crossed)
    ]);
    expect(rows.map((r) => [r.a, r.f, r.l, r.p, r.T])).toEqual([
      [1, 1, 1, '100', T],
      [2, 2, 2, '101', T],
      [3, 3, 3, '101', T],
      [4, 4, 4, '101', T + 1],
    ]);
  });

  it('marks a taker sell as buyer-is-maker', () => {
    const [sell] = aggregate([fill(5, 'o9', '99', '1', T, 'SELL')]);
    expect(sell.m).toBe(true);
  });

  it('ignores a fill whose id is not above the aggregate (a replayed copy)', () => {
    const open = nextAggTrade(nextAggTrade(undefined, fill(3, 'o1', '100', '1')), fill(4, 'o1', '100', '1'));
    expect(nextAggTrade(open, fill(4, 'o1', '100', '1'))).toBe(open);
    expect(nextAggTrade(open, fill(2, 'o7', '50', '1'))).toBe(open);
  });
});

describe('aggTradeRow', () => {
  it('renders decimals with the given precision', () => {
    const a = nextAggTrade(undefined, fill(1, 'o1', '100.5', '0.25'));
    expect(aggTradeRow(a, { priceDecimals: 2, qtyDecimals: 3 })).toEqual({
      a: 1,
      p: '100.50',
      q: '0.250',
      f: 1,
      l: 1,
      T,
      m: false,
    });
    expect(Object.keys(aggTradeRow(a))).toEqual(['a', 'p', 'q', 'f', 'l', 'T', 'm']);
  });
});
