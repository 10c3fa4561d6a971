import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BookSide } from '@perp/domain';
import { EnginePartition } from './engine-partition';

const A = `0x${'a'.repeat(40)}`;
const B = `0x${'b'.repeat(40)}`;

describe('EnginePartition snapshot', () => {
  // Written by the engine shard before it was split into modules (partition 3, four places).
  const stored = readFileSync(join(__dirname, '__fixtures__', 'engine-snapshot-v1.json'));

  it('restores a stored version 1 snapshot: books, interned ids, users and origins', () => {
    const p = EnginePartition.deserialize(3, stored);
    const sb = p.books.get('BTCUSDT')!;
    expect([sb.tickSize, sb.lotSize, sb.pricePrecision, sb.quantityPrecision]).toEqual([
      '0.1',
      '0.001',
      1,
      3,
    ]);
    expect(sb.book.depth(BookSide.SELL)).toEqual([
      { price: 1005, quantity: 600, orders: 1 },
      { price: 1010, quantity: 2000, orders: 1 },
    ]);
    expect(sb.book.depth(BookSide.BUY)).toEqual([{ price: 990, quantity: 3000, orders: 1 }]);
    expect(p.orderIds.get('00000000-0000-4000-8000-000000000003')).toBe(4);
    // The taker filled at once: its id was forgotten.
    expect(p.orderIds.has('00000000-0000-4000-8000-000000000002')).toBe(false);
    expect([p.userId(A), p.userId(B), p.nextOrderId]).toEqual([1, 2, 5]);
    expect(p.seen({ partition: 5, offset: '42', index: 1 })).toBe(true);
    expect(p.seen({ partition: 5, offset: '42', index: 2 })).toBe(false);
  });

  it('writes back what it read, with prevSeq 0 (no book.delta published yet) on each book and no ADL state', () => {
    const p = EnginePartition.deserialize(3, stored);
    expect(p.books.get('BTCUSDT')?.prevSeq).toBe(0);
    p.lastOffset = 3n;
    const read = JSON.parse(stored.toString('utf8')) as { books: object[] };
    expect(JSON.parse(p.serialize().toString('utf8'))).toEqual({
      ...read,
      books: read.books.map((b) => ({ ...b, prevSeq: 0 })),
      adl: [],
    });
  });

  it('keeps the seq of the last book.delta across a snapshot', () => {
    const p = EnginePartition.deserialize(3, stored);
    p.books.get('BTCUSDT')!.prevSeq = 41;
    const again = EnginePartition.deserialize(3, p.serialize());
    expect(again.books.get('BTCUSDT')?.prevSeq).toBe(41);
  });

  it('refuses another version', () => {
    const other = JSON.stringify({ ...JSON.parse(stored.toString('utf8')), v: 2 });
    expect(() => EnginePartition.deserialize(3, Buffer.from(other))).toThrow(/version 2/);
  });
});
