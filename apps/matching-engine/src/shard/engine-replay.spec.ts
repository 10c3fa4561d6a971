import { type Bus, type BusMessage, MemoryBus, silentLogger, type Subscription } from '@perp/bus';
import { TOPICS } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { MarketAdmin } from '../markets/market-admin';
import { EngineShard, type OrderCommand } from './engine-shard';
import { ALICE, BOB, BTC } from './__fixtures__/markets';

const TOPIC = 'perp.engine.commands.v1';

const at = (offset: number): BusMessage =>
  ({
    topic: TOPIC,
    partition: 0,
    offset: String(offset),
    key: 'BTCUSDT',
    headers: {},
    value: null,
  }) as BusMessage;

/** Rests, crosses, cancels and amends around a few levels, some forwarded by risk (origin). */
function command(i: number): OrderCommand {
  const base = { id: `c-${i}`, v: 1, time: 1_700_000_000_000 + i, symbol: 'BTCUSDT' };
  const user = i % 3 === 0 ? ALICE : BOB;
  const orderId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  if (i % 7 === 6) return { ...base, type: 'order.cancel', user, orderId: orderId(i - 4) } as OrderCommand;
  if (i % 11 === 10)
    return {
      ...base,
      type: 'order.amend',
      user,
      orderId: orderId(i - 2),
      price: '101',
      quantity: '0.5',
    } as OrderCommand;
  return {
    ...base,
    type: 'order.place',
    orderId: orderId(i),
    clientOrderId: `cid-${i}`,
    user,
    side: i % 2 === 0 ? 'SELL' : 'BUY',
    orderType: 'LIMIT',
    timeInForce: 'GTC',
    quantity: String(1 + (i % 4) * 0.5),
    price: String(98 + (i % 5)),
    reduceOnly: false,
    workingType: 'CONTRACT_PRICE',
    priceProtect: false,
    selfTradePreventionMode: 'EXPIRE_TAKER',
    frozenMargin: '0',
    ...(i % 2 === 1 ? { origin: { partition: 1, offset: String(i) } } : {}),
  } as OrderCommand;
}

/** A shard owning partition 0, the group's commit at `committed` when it was assigned. */
async function shardCommittedAt(
  committed: string | undefined,
  registry = new MarketRegistry([BTC]),
): Promise<EngineShard> {
  const shard = new EngineShard({} as Bus, registry);
  const sub = { seek: () => undefined, committedAtAssignment: () => committed } as unknown as Subscription;
  await shard.assigned([{ topic: TOPIC, partition: 0 }], sub);
  return shard;
}

describe('EngineShard replay of inputs the group had committed', () => {
  it('builds no events for them, and leaves the state that makes every later event the same', async () => {
    const COMMITTED = 60;
    const full = await shardCommittedAt(undefined);
    const quiet = await shardCommittedAt(String(COMMITTED));
    for (let i = 0; i < COMMITTED; i++) {
      const a = full.apply(at(i), command(i));
      const b = quiet.apply(at(i), command(i));
      expect(a?.replayed).toBe(false);
      expect(b).toMatchObject({ events: [], replayed: true });
      // A placed order's answer is not built either (the first owner published it before the
      // commit); a cancel's or amend's is the same as the first run's.
      if (command(i).type === 'order.place') expect(b!.reply).toEqual({ ok: true, result: undefined });
      else expect(b!.reply).toEqual(a!.reply);
    }
    expect(full.book('BTCUSDT')!.seq).toBeGreaterThan(0);
    expect(Buffer.from(quiet.book('BTCUSDT')!.snapshot())).toEqual(
      Buffer.from(full.book('BTCUSDT')!.snapshot()),
    );
    // From the commit on, both publish: the same events (book.delta chain, book.top, trades, results).
    for (let i = COMMITTED; i < COMMITTED + 40; i++) {
      const a = full.apply(at(i), command(i));
      const b = quiet.apply(at(i), command(i));
      expect(b).toEqual(a);
      expect(a!.events.length).toBeGreaterThan(0);
    }
    // A risk replay of an origin seen during the quiet part is still refused as applied.
    expect(quiet.apply(at(COMMITTED + 40), command(1))).toBeUndefined();
  });
});

const PAUSE = {
  id: 'c-pause',
  v: 1,
  time: 1,
  symbol: 'BTCUSDT',
  type: 'market.status',
  status: 'HALT',
  actor: 'ops',
} as const;

describe('EngineShard replay across a market status change', () => {
  it('creates a book in the status the market first had: an order taken before a pause rests again on replay', async () => {
    const registry = new MarketRegistry([BTC]);
    const run = async () => {
      const shard = await shardCommittedAt(undefined, registry);
      const place = shard.apply(at(0), command(1));
      const paused = shard.apply(at(1), PAUSE as unknown as OrderCommand);
      const refused = shard.apply(at(2), command(3));
      return { shard, place, paused, refused };
    };
    const first = await run();
    expect(first.place!.reply).toMatchObject({ ok: true });
    expect(first.refused!.reply).toMatchObject({ ok: false, error: { reason: 'MARKET_NOT_TRADING' } });
    // After a restart the process's market list already says HALT when the partition replays.
    registry.setStatus('BTCUSDT', 'HALT');
    const replay = await run();
    expect([replay.place, replay.paused, replay.refused]).toEqual([first.place, first.paused, first.refused]);
    expect(Buffer.from(replay.shard.book('BTCUSDT')!.snapshot())).toEqual(
      Buffer.from(first.shard.book('BTCUSDT')!.snapshot()),
    );
  });
});

describe('a market command replayed after a later delisting', () => {
  it("decides on the market's status as the partition's log has it, not the live list's", async () => {
    const registry = new MarketRegistry([BTC]);
    const shard = await shardCommittedAt(undefined, registry);
    // The live list already holds the delisting that comes later in the log.
    registry.setStatus('BTCUSDT', 'CLOSE');
    expect(shard.marketStatus(0, 'btc-usdt')).toBe('TRADING');
    const bus = new MemoryBus({ topics: { [TOPICS.markets.name]: 1 }, logger: silentLogger });
    await bus.connect();
    const admin = new MarketAdmin(bus, registry);
    const pause = { ...PAUSE, id: 'p' } as const;
    const paused = await admin.apply(pause, 'e-1', shard.marketStatus(0, 'BTCUSDT'));
    expect(paused.status).toBe('HALT');
    shard.apply(at(0), pause as unknown as OrderCommand);
    expect(shard.marketStatus(0, 'BTCUSDT')).toBe('HALT');
    // As of a log that has the delisting, the market stays closed.
    const delist = { ...pause, id: 'd', status: 'CLOSE' } as const;
    await admin.apply(delist, 'e-2', shard.marketStatus(0, 'BTCUSDT'));
    shard.apply(at(1), delist as unknown as OrderCommand);
    await expect(
      admin.apply({ ...pause, id: 'r', status: 'TRADING' }, 'e-3', shard.marketStatus(0, 'BTCUSDT')),
    ).rejects.toThrow('market BTCUSDT is delisted');
    expect(shard.marketStatus(0, 'ETHUSDT')).toBeUndefined();
    await bus.close();
  });
});
