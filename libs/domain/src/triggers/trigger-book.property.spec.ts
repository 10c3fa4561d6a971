import fc from 'fast-check';
import { Money } from '../money/money';
import { TriggerBook, type TriggerEntry } from './trigger-book';
import { isTriggered } from './trigger-orders';

const entryArb = fc.record({
  symbol: fc.constantFrom('BTCUSDT', 'ETHUSDT'),
  direction: fc.constantFrom('RISE' as const, 'FALL' as const),
  ticks: fc.integer({ min: 1, max: 40 }),
});
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), entry: entryArb }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('mark' as const),
    symbol: fc.constantFrom('BTCUSDT', 'ETHUSDT'),
    ticks: fc.integer({ min: 0, max: 41 }),
  }),
);

describe('TriggerBook (property)', () => {
  it('fires exactly the entries a naive scan finds, in placement order, and forgets them', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const book = new TriggerBook<TriggerEntry>();
        let naive: TriggerEntry[] = [];
        let seq = 0;
        for (const op of ops) {
          if (op.kind === 'add') {
            const e: TriggerEntry = {
              orderId: `o${seq}`,
              symbol: op.entry.symbol,
              direction: op.entry.direction,
              stopPrice: new Money(op.entry.ticks).times('0.5'),
              seq: seq++,
            };
            book.add(e);
            naive.push(e);
          } else if (op.kind === 'remove') {
            if (!naive.length) continue;
            const e = naive[op.pick % naive.length]!;
            expect(book.remove(e.orderId)).toBe(e);
            naive = naive.filter((x) => x !== e);
          } else {
            const mark = new Money(op.ticks).times('0.5');
            const expected = naive.filter(
              (e) => e.symbol === op.symbol && isTriggered(e.direction, e.stopPrice, mark),
            );
            expect(book.fire(op.symbol, mark).map((e) => e.orderId)).toEqual(expected.map((e) => e.orderId));
            naive = naive.filter((e) => !expected.includes(e));
          }
          expect(book.size).toBe(naive.length);
          expect(book.entries().map((e) => e.orderId)).toEqual(naive.map((e) => e.orderId));
        }
      }),
    );
  });

  it('refuses a second entry with the same order id', () => {
    const book = new TriggerBook<TriggerEntry>();
    const e = {
      orderId: 'a',
      symbol: 'BTCUSDT',
      direction: 'RISE' as const,
      stopPrice: new Money(1),
      seq: 0,
    };
    book.add(e);
    expect(() => book.add({ ...e, seq: 1 })).toThrow('already waiting');
    expect(book.remove('missing')).toBeUndefined();
  });
});
