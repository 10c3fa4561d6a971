import fc from 'fast-check';
import { IntMap } from './int-map';

describe('IntMap', () => {
  it('behaves like a Map under random sets, deletes and gets (collisions, growth, big keys)', () => {
    const key = fc.oneof(
      fc.integer({ min: 0, max: 64 }),
      fc.integer({ min: 0, max: 64 }).map((k) => k * 2 ** 32 + 7),
      fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, -(2 ** 40)),
    );
    const op = fc.tuple(fc.constantFrom('set', 'delete', 'get'), key, fc.nat(1000));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const m = new IntMap(4);
        const ref = new Map<number, number>();
        for (const [what, k, v] of ops) {
          if (what === 'set') {
            m.set(k, v);
            ref.set(k, v);
          } else if (what === 'delete') {
            expect(m.delete(k)).toBe(ref.get(k) ?? -1);
            ref.delete(k);
          }
          expect(m.get(k)).toBe(ref.get(k) ?? -1);
          expect(m.size).toBe(ref.size);
        }
        for (const [k, v] of ref) expect(m.get(k)).toBe(v);
      }),
      { numRuns: 300 },
    );
  });
});
