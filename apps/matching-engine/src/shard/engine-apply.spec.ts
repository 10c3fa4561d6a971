import type { Bus, BusMessage } from '@perp/bus';
import type { EngineEvent } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { EngineShard, type OrderCommand } from './engine-shard';
import { placeCommand } from './__fixtures__/commands';
import { ALICE, BOB, BTC } from './__fixtures__/markets';

const TOPIC = 'perp.engine.commands.v1';

/** A bus that records what is published. */
function recordingBus(): { bus: Bus; published: EngineEvent[] } {
  const published: EngineEvent[] = [];
  const bus = {
    publish: (_topic: string, _key: string, value: EngineEvent) => {
      published.push(value);
      return Promise.resolve();
    },
  } as unknown as Bus;
  return { bus, published };
}

const at = (offset: number): BusMessage =>
  ({
    topic: TOPIC,
    partition: 0,
    offset: String(offset),
    key: 'BTCUSDT',
    headers: {},
    value: null,
  }) as BusMessage;

let seq = 0;
const place = (
  user: string,
  side: 'BUY' | 'SELL',
  price: string,
  quantity: string,
  extra: Partial<OrderCommand> = {},
) => placeCommand(++seq, user, side, price, quantity, extra);

describe('EngineShard.apply', () => {
  it('applies a command and returns its events and reply without publishing anything', () => {
    const { bus, published } = recordingBus();
    const shard = new EngineShard(bus, new MarketRegistry([BTC]));
    const maker = shard.apply(at(0), place(ALICE, 'SELL', '100', '1'));
    const taker = shard.apply(at(1), place(BOB, 'BUY', '100', '0.4'));
    expect(maker?.reply).toMatchObject({ ok: true, result: { status: 'NEW' } });
    expect(taker?.reply).toMatchObject({ ok: true, result: { status: 'FILLED', executedQty: '0.400' } });
    expect(taker?.events.map((e) => [e.type, e.id])).toEqual([
      ['order.accepted', `${TOPIC}/0/1/0`],
      ['trade', `${TOPIC}/0/1/1`],
      ['book.delta', `${TOPIC}/0/1/2`],
      ['book.top', `${TOPIC}/0/1/3`],
    ]);
    expect(published).toEqual([]);
    expect(shard.book('BTCUSDT')?.restingOrders).toBe(1);
  });

  it('answers undefined for an input at or below the applied offset, once marked applied', async () => {
    const { bus } = recordingBus();
    const shard = new EngineShard(bus, new MarketRegistry([BTC]));
    const m = at(0);
    await shard.inTurn(0, async () => {
      expect(shard.apply(m, place(ALICE, 'SELL', '100', '1'))).toBeDefined();
      await shard.markApplied(m);
    });
    expect(shard.apply(m, place(ALICE, 'SELL', '100', '1'))).toBeUndefined();
    expect(shard.book('BTCUSDT')?.restingOrders).toBe(1);
  });

  it('ends a forwarded command with its command.result and skips it when risk forwards it again', () => {
    const { bus } = recordingBus();
    const shard = new EngineShard(bus, new MarketRegistry([BTC]));
    const origin = { partition: 2, offset: '7', index: 0 };
    const replyTo = { topic: 'replies', key: 'k', correlationId: 'c' };
    const first = shard.apply(at(0), place(ALICE, 'BUY', '100', '1', { origin, replyTo }));
    expect(first?.events.at(-1)).toMatchObject({
      type: 'command.result',
      id: `${TOPIC}/0/0/3`,
      command: 'order.place',
      ok: true,
      replyTo,
    });
    expect(shard.apply(at(1), place(ALICE, 'BUY', '101', '1', { origin }))).toBeUndefined();
    const refused = shard.apply(
      at(2),
      place(BOB, 'SELL', '99', '1', { timeInForce: 'GTX', origin: { ...origin, index: 1 } }),
    );
    expect(refused?.events.at(-1)).toMatchObject({
      type: 'command.result',
      ok: false,
      error: { reason: 'POST_ONLY_WOULD_TAKE' },
    });
  });

  it('refuses an unknown symbol and a duplicate order id before the book', () => {
    const { bus } = recordingBus();
    const shard = new EngineShard(bus, new MarketRegistry([BTC]));
    const cmd = place(ALICE, 'BUY', '100', '1');
    shard.apply(at(0), cmd);
    expect(shard.apply(at(1), { ...cmd, id: 'again' })).toEqual({
      events: [],
      reply: { ok: false, error: { reason: 'DUPLICATE_ORDER_ID', msg: 'order id already in use' } },
    });
    expect(
      shard.apply(at(2), { ...place(ALICE, 'BUY', '100', '1'), symbol: 'ETHUSDT' })?.reply,
    ).toMatchObject({
      ok: false,
      error: { reason: 'INVALID_SYMBOL' },
    });
  });

  it('handle publishes the events apply returns, in order, and answers the reply', async () => {
    const { bus, published } = recordingBus();
    const shard = new EngineShard(bus, new MarketRegistry([BTC]));
    await shard.handle(at(0), place(ALICE, 'SELL', '100', '1'));
    const reply = await shard.handle(at(1), place(BOB, 'BUY', '100', '1'));
    expect(reply).toMatchObject({ ok: true, result: { status: 'FILLED' } });
    expect(published.map((e) => e.type)).toEqual([
      'order.accepted',
      'book.delta',
      'book.top',
      'order.accepted',
      'trade',
      'book.delta',
      'book.top',
    ]);
    expect(await shard.handle(at(1), place(BOB, 'BUY', '100', '1'))).toMatchObject({
      ok: false,
      error: { reason: 'ALREADY_APPLIED' },
    });
    expect(published).toHaveLength(7);
  });
});
