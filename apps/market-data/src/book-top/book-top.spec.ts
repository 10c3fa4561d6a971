import { MemoryHotStore } from '@perp/cache';
import { DepthBook } from '@perp/domain';
import { BOOK_TOP_KEY, bookTopFields, readBookTop } from './book-top';

describe('bookTopFields', () => {
  it('is the best level of each side at the book sequence', async () => {
    const book = DepthBook.fromJSON({
      lastUpdateId: 7,
      bids: [
        ['98.5', '3'],
        ['99.0', '1.5'],
      ],
      asks: [
        ['101.0', '2'],
        ['100.5', '0.25'],
      ],
    });
    const hot = new MemoryHotStore();
    await hot.hset(BOOK_TOP_KEY('XUSDT'), bookTopFields(book, 1_234));
    const t = await readBookTop(hot, 'XUSDT');
    expect([t.bid.price.toFixed(), t.bid.qty.toFixed(), t.ask.price.toFixed(), t.ask.qty.toFixed()]).toEqual([
      '99',
      '1.5',
      '100.5',
      '0.25',
    ]);
    expect([t.seq, t.time]).toEqual([7, 1_234]);
    await hot.close();
  });

  it('an empty side is price and quantity 0', () => {
    const book = DepthBook.fromJSON({ lastUpdateId: 2, bids: [['99.0', '1']], asks: [] });
    expect(bookTopFields(book, 5)).toEqual({
      bidPrice: '99.0',
      bidQty: '1',
      askPrice: '0',
      askQty: '0',
      seq: '2',
      time: '5',
    });
  });
});

describe('readBookTop', () => {
  it('an unknown symbol reads as an empty book', async () => {
    const t = await readBookTop(new MemoryHotStore(), 'XUSDT');
    expect([t.bid.qty.toFixed(), t.ask.qty.toFixed(), t.seq]).toEqual(['0', '0', -1]);
  });
});
