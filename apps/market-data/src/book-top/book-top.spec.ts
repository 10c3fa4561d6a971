import { Logger } from '@nestjs/common';
import { type BusMessage, MemoryBus } from '@perp/bus';
import { MemoryHotStore } from '@perp/cache';
import { type EngineEvent, TOPICS, topicPartitions } from '@perp/contracts';
import { BOOK_TOP_KEY, nextBookTop, readBookTop } from './book-top';
import { BookTopProjector } from './book-top.projector';

type Top = Extract<EngineEvent, { type: 'book.top' }>;

const top = (seq: number, bid: [string, string], ask: [string, string]): Top => ({
  id: `top/${seq}`,
  v: 1,
  time: 1_000 + seq,
  type: 'book.top',
  symbol: 'XUSDT',
  seq,
  bidPrice: bid[0],
  bidQty: bid[1],
  askPrice: ask[0],
  askQty: ask[1],
});

describe('nextBookTop', () => {
  it('writes a newer top and ignores an older or equal one', () => {
    const fields = nextBookTop({}, top(3, ['99', '1'], ['101', '2']));
    expect(fields).toEqual({
      bidPrice: '99',
      bidQty: '1',
      askPrice: '101',
      askQty: '2',
      seq: '3',
      time: '1003',
    });
    expect(nextBookTop(fields!, top(3, ['98', '1'], ['101', '2']))).toBeUndefined();
    expect(nextBookTop(fields!, top(2, ['98', '1'], ['101', '2']))).toBeUndefined();
    expect(nextBookTop(fields!, top(10, ['98', '1'], ['101', '2']))).toMatchObject({ bidPrice: '98' });
  });
});

describe('readBookTop', () => {
  it('an unknown symbol reads as an empty book', async () => {
    const t = await readBookTop(new MemoryHotStore(), 'XUSDT');
    expect([t.bid.qty.toFixed(), t.ask.qty.toFixed(), t.seq]).toEqual(['0', '0', -1]);
  });
});

describe('BookTopProjector', () => {
  it('projects book.top events in seq order and skips everything else', async () => {
    const bus = new MemoryBus({ topics: topicPartitions(), cloneValues: true });
    await bus.connect();
    const hot = new MemoryHotStore();
    const projector = new BookTopProjector(bus, hot);
    const message = (value: unknown, offset: string): BusMessage => ({
      topic: TOPICS.engineEvents.name,
      partition: 0,
      offset,
      key: 'XUSDT',
      value,
      headers: {},
      timestamp: 0,
    });
    await projector.handle(message(top(5, ['99', '1'], ['101', '2']), '0'));
    await projector.handle(message(top(4, ['1', '1'], ['2', '2']), '1'));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await projector.handle(message({ type: 'nonsense' }, '2'));
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
    const t = await readBookTop(hot, 'XUSDT');
    expect([t.bid.price.toFixed(), t.ask.qty.toFixed(), t.seq]).toEqual(['99', '2', 5]);
    expect(Object.keys(await hot.hgetall(BOOK_TOP_KEY('XUSDT'))).sort()).toEqual(
      ['askPrice', 'askQty', 'bidPrice', 'bidQty', 'seq', 'time'].sort(),
    );
    await bus.close();
    await hot.close();
  });
});
