import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { type BusMessage, MemoryBus } from '@perp/bus';
import { MemoryHotStore } from '@perp/cache';
import { type EngineEvent, TOPICS, topicPartitions } from '@perp/contracts';
import {
  nextOpenInterest,
  OPEN_INTEREST_KEY,
  placeField,
  openInterestDelta,
  projectTrade,
  readOpenInterest,
} from './open-interest';
import { OpenInterestProjector } from './open-interest.projector';

type Trade = Extract<EngineEvent, { type: 'trade' }>;
type Side = { side: 'BUY' | 'SELL'; open: string; close: string };

const MAKER = '0x' + '11'.repeat(20);
const TAKER = '0x' + '22'.repeat(20);
let seq = 0;

/** A trade of `qty` between a maker and a taker with each side's open/close split. */
function trade(
  symbol: string,
  qty: string,
  maker: Side,
  taker: Side,
  time = 1_000,
  id = `perp.engine.commands.v1/0/${seq + 1}/0`,
): Trade {
  const side = (user: string, s: Side) => ({
    orderId: randomUUID(),
    user,
    side: s.side,
    split: { open: s.open, close: s.close },
  });
  return {
    id: (++seq, id),
    v: 1,
    time,
    type: 'trade',
    symbol,
    seq,
    tradeId: randomUUID(),
    price: '100',
    qty,
    maker: side(MAKER, maker),
    taker: side(TAKER, taker),
  };
}

const message = (value: unknown, partition: number, offset: string): BusMessage => ({
  topic: TOPICS.engineEvents.name,
  partition,
  offset,
  key: 'X',
  value,
  headers: {},
  timestamp: 0,
});

describe('openInterestDelta', () => {
  it('two openers raise both sides by the quantity', () => {
    const d = openInterestDelta(
      trade('XUSDT', '2', { side: 'SELL', open: '2', close: '0' }, { side: 'BUY', open: '2', close: '0' }),
    );
    expect([d.long.toFixed(), d.short.toFixed()]).toEqual(['2', '2']);
  });

  it('two closers lower both sides', () => {
    const d = openInterestDelta(
      trade('XUSDT', '1', { side: 'BUY', open: '0', close: '1' }, { side: 'SELL', open: '0', close: '1' }),
    );
    expect([d.long.toFixed(), d.short.toFixed()]).toEqual(['-1', '-1']);
  });

  it('a flip (long 3 selling 5) closes 3 longs and opens 2 shorts against an opening buyer', () => {
    const d = openInterestDelta(
      trade('XUSDT', '5', { side: 'BUY', open: '5', close: '0' }, { side: 'SELL', open: '2', close: '3' }),
    );
    // longs: +5 (buyer opens) -3 (seller closes its long); shorts: +2 (seller opens).
    expect([d.long.toFixed(), d.short.toFixed()]).toEqual(['2', '2']);
  });

  it('a position changing hands leaves open interest unchanged', () => {
    const d = openInterestDelta(
      trade('XUSDT', '1', { side: 'SELL', open: '0', close: '1' }, { side: 'BUY', open: '1', close: '0' }),
    );
    expect([d.long.toFixed(), d.short.toFixed()]).toEqual(['0', '0']);
  });
});

describe('nextOpenInterest', () => {
  const open = (qty: string) =>
    trade(
      'XUSDT',
      qty,
      { side: 'SELL', open: qty, close: '0' },
      { side: 'BUY', open: qty, close: '0' },
      5_000,
    );

  const at = (place: string, qty = '1') => ({ ...open(qty), id: `perp.engine.commands.v1/${place}` });

  it('adds to the stored figures and records the place of the trade with them', () => {
    const next = nextOpenInterest(
      { long: '1.5', short: '1.5', time: '4000', [placeField(2)]: '9/0' },
      at('2/10/0', '0.5'),
    );
    expect(next).toEqual({ long: '2', short: '2', time: '5000', 'place:2': '10/0' });
  });

  it('drops a trade at or below its engine partition high-water mark (offset, then event index)', () => {
    const stored = { long: '1', short: '1', 'place:3': '10/1' };
    for (const place of ['3/10/1', '3/10/0', '3/7/4'])
      expect(nextOpenInterest(stored, at(place))).toBeUndefined();
    expect(nextOpenInterest(stored, at('3/10/2'))).toBeDefined();
    expect(nextOpenInterest(stored, at('2/1/0'))).toBeDefined();
  });

  it('compares offsets as integers, not strings; a trade whose id names no place is not applied', () => {
    expect(nextOpenInterest({ 'place:0': '9/0' }, at('0/10/0'))).toBeDefined();
    expect(nextOpenInterest({}, { ...open('1'), id: 'no-place' })).toBeUndefined();
  });
});

describe('projectTrade and readOpenInterest', () => {
  it('reads zero for a symbol without trades', async () => {
    const hot = new MemoryHotStore();
    const oi = await readOpenInterest(hot, 'XUSDT');
    expect([oi.long.toFixed(), oi.short.toFixed(), oi.time]).toEqual(['0', '0', 0]);
  });

  it('is exactly once: a redelivered event changes nothing', async () => {
    const hot = new MemoryHotStore();
    const t = trade(
      'XUSDT',
      '1',
      { side: 'SELL', open: '1', close: '0' },
      { side: 'BUY', open: '1', close: '0' },
    );
    expect(await projectTrade(hot, t)).toBe(true);
    expect(await projectTrade(hot, t)).toBe(false);
    expect(await hot.hgetall(OPEN_INTEREST_KEY('XUSDT'))).toEqual({
      long: '1',
      short: '1',
      time: '1000',
      [placeField(0)]: `${t.id.split('/')[2]}/0`,
    });
  });
});

describe('OpenInterestProjector', () => {
  let bus: MemoryBus;
  let hot: MemoryHotStore;
  let projector: OpenInterestProjector;

  beforeEach(async () => {
    bus = new MemoryBus({ topics: topicPartitions(), cloneValues: true });
    await bus.connect();
    hot = new MemoryHotStore();
    projector = new OpenInterestProjector(bus, hot);
    await projector.onApplicationBootstrap();
  });

  afterEach(async () => {
    await projector.onModuleDestroy();
    await bus.close();
    await hot.close();
  });

  async function until(symbol: string, long: string): Promise<Record<string, string>> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const row = await hot.hgetall(OPEN_INTEREST_KEY(symbol));
      if (row.long === long || Date.now() > deadline) return row;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  it('keeps per-symbol figures from the engine-events log; other events change nothing', async () => {
    const publish = (e: EngineEvent) => bus.publish(TOPICS.engineEvents.name, e.symbol, e);
    await publish(
      trade('AUSDT', '3', { side: 'SELL', open: '3', close: '0' }, { side: 'BUY', open: '3', close: '0' }),
    );
    await publish({
      id: 'top/1',
      v: 1,
      time: 1,
      type: 'book.top',
      symbol: 'AUSDT',
      seq: 99,
      bidPrice: '0',
      bidQty: '0',
      askPrice: '0',
      askQty: '0',
    });
    const last = trade(
      'AUSDT',
      '1',
      { side: 'BUY', open: '0', close: '1' },
      { side: 'SELL', open: '0', close: '1' },
    );
    await publish(last);
    await publish(
      trade('BUSDT', '7', { side: 'BUY', open: '7', close: '0' }, { side: 'SELL', open: '7', close: '0' }),
    );
    const a = await until('AUSDT', '2');
    expect([a.long, a.short]).toEqual(['2', '2']);
    const b = await until('BUSDT', '7');
    expect([b.long, b.short]).toEqual(['7', '7']);
    expect(a[placeField(0)]).toBe(last.id.split('/').slice(-2).join('/'));
  });

  it('a message delivered again (crash before the commit) is not counted twice', async () => {
    const t = trade(
      'CUSDT',
      '1',
      { side: 'SELL', open: '1', close: '0' },
      { side: 'BUY', open: '1', close: '0' },
    );
    await projector.handle(message(t, 4, '12'));
    await projector.handle(message(t, 4, '12'));
    expect((await hot.hgetall(OPEN_INTEREST_KEY('CUSDT'))).long).toBe('1');
    // An engine replay re-emits the trade at a later offset of the events log, with the same id.
    await projector.handle(message(t, 4, '40'));
    expect((await hot.hgetall(OPEN_INTEREST_KEY('CUSDT'))).long).toBe('1');
  });

  it('skips a malformed message instead of blocking the partition', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await projector.handle(message({ type: 'trade', symbol: 'DUSDT' }, 1, '0'));
    expect(await hot.hgetall(OPEN_INTEREST_KEY('DUSDT'))).toEqual({});
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('skipped malformed'));
    warn.mockRestore();
  });
});
