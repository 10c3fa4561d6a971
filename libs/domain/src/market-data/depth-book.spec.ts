import fc from 'fast-check';
import { Money } from '../money/money';
import { DepthBook, type DepthDelta, type DepthLevel } from './depth-book';

const delta = (seq: number, bids: DepthLevel[] = [], asks: DepthLevel[] = []): DepthDelta => ({
  seq,
  bids,
  asks,
});

describe('DepthBook', () => {
  it('starts empty at lastUpdateId 0', () => {
    expect(new DepthBook().top(5)).toEqual({ lastUpdateId: 0, bids: [], asks: [] });
  });

  it('orders bids high to low and asks low to high by exact decimal value', () => {
    const b = new DepthBook();
    b.apply(
      delta(
        1,
        [
          ['9.5', '1'],
          ['10.25', '2'],
          ['100', '3'],
          ['10.3', '4'],
        ],
        [
          ['100.5', '1'],
          ['1000', '2'],
          ['101', '3'],
          ['100.25', '4'],
        ],
      ),
    );
    expect(b.top(10)).toEqual({
      lastUpdateId: 1,
      bids: [
        ['100', '3'],
        ['10.3', '4'],
        ['10.25', '2'],
        ['9.5', '1'],
      ],
      asks: [
        ['100.25', '4'],
        ['100.5', '1'],
        ['101', '3'],
        ['1000', '2'],
      ],
    });
    expect(b.top(2).bids).toEqual([
      ['100', '3'],
      ['10.3', '4'],
    ]);
  });

  it('compares prices beyond float precision exactly', () => {
    const b = new DepthBook();
    b.apply(
      delta(1, [
        ['0.30000000000000000001', '1'],
        ['0.3', '2'],
        ['0.29999999999999999999', '3'],
      ]),
    );
    expect(b.top(3).bids.map(([p]) => p)).toEqual([
      '0.30000000000000000001',
      '0.3',
      '0.29999999999999999999',
    ]);
  });

  it('replaces a level’s quantity, removes it at zero, and treats 100.10 and 100.1 as one level', () => {
    const b = new DepthBook();
    b.apply(delta(1, [['100.10', '1']], [['101', '1']]));
    b.apply(delta(2, [['100.1', '5']]));
    expect(b.top(5).bids).toEqual([['100.10', '5']]);
    b.apply(delta(3, [['100.100', '0.000']], [['101', '0']]));
    expect(b.top(5)).toEqual({ lastUpdateId: 3, bids: [], asks: [] });
    expect(b.apply(delta(4, [['99', '0']]))).toBe(true); // removing an absent level is harmless
    expect(b.depth).toEqual({ bids: 0, asks: 0 });
  });

  it('ignores a delta whose seq is not above lastUpdateId; gaps are fine', () => {
    const b = new DepthBook();
    expect(b.apply(delta(5, [['100', '1']]))).toBe(true);
    expect(b.apply(delta(5, [['100', '9']]))).toBe(false);
    expect(b.apply(delta(3, [['100', '9']]))).toBe(false);
    expect(b.apply(delta(9, [['100', '2']]))).toBe(true);
    expect(b.top(1)).toEqual({ lastUpdateId: 9, bids: [['100', '2']], asks: [] });
  });

  it('refuses a malformed level before changing anything', () => {
    const b = new DepthBook();
    b.apply(delta(1, [['100', '1']]));
    for (const bad of [
      delta(2, [['99', '1']], [['abc', '1']]),
      delta(2, [['99', '1']], [['0', '1']]),
      delta(2, [['99', '1']], [['-1', '1']]),
      delta(2, [['99', '-1']]),
      delta(2, [['99', '1e3']]),
    ]) {
      expect(() => b.apply(bad)).toThrow(RangeError);
    }
    expect(b.top(5)).toEqual({ lastUpdateId: 1, bids: [['100', '1']], asks: [] });
  });

  it('round-trips through JSON', () => {
    const b = new DepthBook();
    b.apply(
      delta(
        7,
        [
          ['1.5', '2'],
          ['1.25', '3'],
        ],
        [['2', '1']],
      ),
    );
    const copy = DepthBook.fromJSON(JSON.parse(JSON.stringify(b)));
    expect(copy.top()).toEqual(b.top());
    expect(copy.apply(delta(7, [['1.5', '9']]))).toBe(false);
    copy.apply(delta(8, [['1.75', '1']]));
    expect(copy.top(1).bids).toEqual([['1.75', '1']]);
  });

  it('loads levels in any order (e.g. a hot-store hash read back)', () => {
    const b = DepthBook.fromJSON({
      lastUpdateId: 3,
      bids: [
        ['1', '1'],
        ['3', '1'],
        ['2', '1'],
      ],
      asks: [
        ['9', '1'],
        ['5', '1'],
      ],
    });
    expect(b.top().bids.map(([p]) => p)).toEqual(['3', '2', '1']);
    expect(b.top().asks.map(([p]) => p)).toEqual(['5', '9']);
  });

  it('matches a naive sorted book under random deltas', () => {
    // Prices on a 0.01 grid written with varying trailing zeros, so equal values arrive as different text.
    const price = fc
      .tuple(fc.integer({ min: 1, max: 400 }), fc.constantFrom('', '0', '00'))
      .map(([cents, pad]) => new Money(cents).div(100).toFixed(2) + pad);
    const qty = fc.oneof(fc.constant('0'), fc.integer({ min: 1, max: 50 }).map(String));
    const level = fc.tuple(price, qty) as fc.Arbitrary<DepthLevel>;
    const side = fc.array(level, { maxLength: 8 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(side, side, fc.integer({ min: 0, max: 3 })), { maxLength: 60 }),
        (steps) => {
          const book = new DepthBook();
          const naive = { bids: new Map<string, DepthLevel>(), asks: new Map<string, DepthLevel>() };
          let seq = 0;
          for (const [bids, asks, step] of steps) {
            seq += step; // step 0 repeats a seq: ignored by both
            const before = book.lastUpdateId;
            const applied = book.apply({ seq, bids, asks });
            expect(applied).toBe(seq > before);
            if (!applied) continue;
            for (const [map, levels] of [
              [naive.bids, bids],
              [naive.asks, asks],
            ] as const) {
              for (const [p, q] of levels) {
                const key = new Money(p).toFixed();
                const held = map.get(key);
                if (q === '0') map.delete(key);
                else map.set(key, [held ? held[0] : p, q]);
              }
            }
          }
          const sorted = (map: Map<string, DepthLevel>, dir: 1 | -1) =>
            [...map.values()].sort(([a], [b]) => dir * (new Money(a).comparedTo(b) ?? 0));
          expect(book.top(Infinity)).toEqual({
            lastUpdateId: book.lastUpdateId,
            bids: sorted(naive.bids, -1),
            asks: sorted(naive.asks, 1),
          });
          expect(book.top(3).bids).toEqual(sorted(naive.bids, -1).slice(0, 3));
        },
      ),
    );
  });
});
