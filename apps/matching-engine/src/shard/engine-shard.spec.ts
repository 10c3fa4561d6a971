import { randomUUID } from 'node:crypto';
import { MemoryBus } from '@perp/bus';
import { type EngineEvent, type Reply, type RiskCommand, TOPICS, topicPartitions } from '@perp/contracts';
import { BookSide, MarketRegistry } from '@perp/domain';
import { MarketsProjection } from '@perp/infrastructure';
import { ShardSnapshotRepository, openTestDatabase, type TestDatabase } from '@perp/persistence';
import { Readiness } from '@perp/runtime';
import { EngineCommandsConsumer } from '../engine-commands.consumer';
import { MarketAdmin } from '../markets/market-admin';
import { placeCommand } from './__fixtures__/commands';
import { ALICE, BOB, BTC } from './__fixtures__/markets';

let db: TestDatabase;
let snapshots: ShardSnapshotRepository;
let bus: MemoryBus;
const engines: EngineCommandsConsumer[] = [];
let events: EngineEvent[];
/** What the engine copied into the risk partitions: [key, command]. */
let copies: [string, RiskCommand][];

beforeAll(async () => {
  db = await openTestDatabase();
  snapshots = new ShardSnapshotRepository(db.dataSource.manager);
});
afterAll(async () => {
  await db?.close();
});

beforeEach(async () => {
  await db.dataSource.query(`DELETE FROM engine_snapshots`);
  bus = new MemoryBus({ topics: topicPartitions(), replyTopic: TOPICS.replies.name, cloneValues: true });
  await bus.connect();
  events = [];
  copies = [];
  await bus.subscribe({
    groupId: `events-${randomUUID()}`,
    topics: [TOPICS.engineEvents.name],
    handler: (m) => {
      events.push(m.value as EngineEvent);
    },
  });
  await bus.subscribe({
    groupId: `copies-${randomUUID()}`,
    topics: [TOPICS.riskCommands.name],
    handler: (m) => {
      copies.push([m.key, m.value as RiskCommand]);
    },
  });
});
afterEach(async () => {
  for (const e of engines.splice(0)) await e.onModuleDestroy();
  await bus.close();
});

async function startEngine(
  snapshotEvery = 1000,
  republish = false,
  registry = new MarketRegistry([BTC]),
  projection?: MarketsProjection,
): Promise<EngineCommandsConsumer> {
  if (!projection) {
    // The test bus's markets topic is empty: read at once.
    projection = new MarketsProjection(bus, registry, new Readiness());
    projection.onModuleInit();
  }
  process.env.ENGINE_SNAPSHOT_EVERY = String(snapshotEvery);
  process.env.ENGINE_SNAPSHOT_MIN_INTERVAL_MS = '0';
  if (republish) process.env.ENGINE_REPLAY_REPUBLISH = '1';
  const engine = new EngineCommandsConsumer(
    bus,
    projection,
    new MarketAdmin(bus, registry),
    registry,
    snapshots,
  );
  delete process.env.ENGINE_SNAPSHOT_EVERY;
  delete process.env.ENGINE_SNAPSHOT_MIN_INTERVAL_MS;
  delete process.env.ENGINE_REPLAY_REPUBLISH;
  engine.onModuleInit();
  await engine.onApplicationBootstrap();
  engines.push(engine);
  return engine;
}

async function send(cmd: Record<string, unknown>, symbol = 'BTCUSDT'): Promise<Reply> {
  const m = await bus.request<Reply>(
    TOPICS.engineCommands.name,
    symbol,
    { id: randomUUID(), v: 1, time: 1_700_000_000_000, symbol, ...cmd },
    { timeoutMs: 5000 },
  );
  return m.value;
}

function place(
  user: string,
  side: 'BUY' | 'SELL',
  price: string,
  quantity: string,
  extra: Record<string, unknown> = {},
  symbol = 'BTCUSDT',
) {
  const { id: _, ...cmd } = placeCommand(0, user, side, price, quantity, {
    orderId: randomUUID(),
    clientOrderId: `c-${randomUUID().slice(0, 8)}`,
    symbol,
  });
  return send({ ...cmd, ...extra }, symbol);
}

async function settle(): Promise<void> {
  const end = await bus.endOffsets(TOPICS.engineEvents.name);
  const total = end.reduce((n, e) => n + Number(e.offset), 0);
  for (let i = 0; i < 200 && events.length < total; i++) await new Promise((r) => setTimeout(r, 5));
}

const byType = <T extends EngineEvent['type']>(t: T) =>
  events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === t);

describe('EngineShard', () => {
  it('joins before the markets topic is read, and restores and applies nothing until it is', async () => {
    let read!: () => void;
    const reading = new Promise<void>((resolve) => (read = resolve));
    let isRead = false;
    // The projection's own afterRead, over a read this test finishes.
    const projection = Object.create(MarketsProjection.prototype) as MarketsProjection;
    Object.defineProperties(projection, {
      isReady: { get: () => isRead },
      ready: { value: () => reading },
    });
    const groups = bus.groupCount;
    const started = startEngine(1000, false, new MarketRegistry([BTC]), projection);
    let answered = false;
    const maker = place(ALICE, 'SELL', '100.5', '0.010').finally(() => (answered = true));
    await new Promise((r) => setTimeout(r, 100));
    // The engine's group is joined (beside the markets projection's, each paying the broker's
    // initial rebalance delay at once), its partitions not restored yet.
    expect(bus.groupCount).toBe(groups + 1);
    expect(answered).toBe(false);
    expect(events).toHaveLength(0);
    isRead = true;
    read();
    await started;
    expect(await maker).toMatchObject({ ok: true, result: { status: 'NEW' } });
  });

  it('matches a resting maker with a crossing taker: one trade with price, qty and split', async () => {
    await startEngine();
    const maker = await place(ALICE, 'SELL', '100.5', '0.010');
    expect(maker).toMatchObject({ ok: true, result: { status: 'NEW' } });
    const taker = await place(BOB, 'BUY', '101', '0.004');
    expect(taker).toMatchObject({ ok: true, result: { status: 'FILLED', executedQty: '0.004' } });
    await settle();
    const trades = byType('trade');
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      symbol: 'BTCUSDT',
      price: '100.5',
      qty: '0.004',
      maker: { user: ALICE, side: 'SELL', split: { open: '0.004', close: '0.000' } },
      taker: { user: BOB, side: 'BUY', split: { open: '0.004', close: '0.000' } },
    });
    expect(trades[0].id).toMatch(/^perp\.engine\.commands\.v1\/\d+\/1\/\d+$/);
    expect(byType('order.accepted')).toHaveLength(2);
    // Published in the trade's turn, the copies that settle it: to the maker's partition, then the taker's.
    const tradeCopies = copies.filter(([, c]) => c.type === 'engine.event' && c.event.id === trades[0]!.id);
    expect(tradeCopies).toEqual([
      [ALICE, expect.objectContaining({ type: 'engine.event', liquidity: 'MAKER', event: trades[0] })],
      [BOB, expect.objectContaining({ type: 'engine.event', liquidity: 'TAKER', event: trades[0] })],
    ]);
    // Acceptances change nothing in risk: no copy.
    expect(copies.filter(([, c]) => c.type === 'engine.event' && c.event.type === 'order.accepted')).toEqual(
      [],
    );
    const seqs = events.filter((e) => e.type !== 'book.top').map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(byType('book.top').at(-1)).toMatchObject({ askPrice: '100.5', askQty: '0.006', bidQty: '0.000' });

    // Bob now closes part of it: long 0.004, sells 0.005 into Alice's bid -> close 0.004, open 0.001.
    await place(ALICE, 'BUY', '99', '0.005');
    await place(BOB, 'SELL', '99', '0.005');
    await settle();
    expect(byType('trade')[1]).toMatchObject({
      price: '99.0',
      taker: { user: BOB, split: { close: '0.004', open: '0.001' } },
      maker: { user: ALICE, split: { close: '0.004', open: '0.001' } },
    });
  });

  it('cancels an open order and refuses an unknown one with UNKNOWN_ORDER', async () => {
    await startEngine();
    const placed = await place(ALICE, 'BUY', '90', '1');
    const orderId = (placed.result as { orderId: string }).orderId;
    const canceled = await send({ type: 'order.cancel', user: ALICE, orderId });
    expect(canceled).toMatchObject({ ok: true, result: { orderId, status: 'CANCELED' } });
    const again = await send({ type: 'order.cancel', user: ALICE, orderId });
    expect(again).toMatchObject({ ok: false, error: { reason: 'UNKNOWN_ORDER' } });
    await settle();
    expect(byType('order.canceled')).toEqual([
      expect.objectContaining({ orderId, remaining: '1.000', user: ALICE }),
    ]);
    expect(copies.filter(([, c]) => c.type === 'engine.event' && c.event.type === 'order.canceled')).toEqual([
      [ALICE, expect.objectContaining({ event: byType('order.canceled')[0] })],
    ]);
  });

  it('applies each command forwarded from one risk input once, ordered by origin index', async () => {
    await startEngine();
    const origin = (index: number) => ({ origin: { partition: 2, offset: '7', index } });
    expect((await place(ALICE, 'SELL', '30000', '0.010', origin(0))).ok).toBe(true);
    expect((await place(ALICE, 'SELL', '30001', '0.010', origin(1))).ok).toBe(true);
    // A risk replay forwards both again (same origin): neither is applied twice.
    for (const i of [0, 1])
      expect(await place(ALICE, 'SELL', '30002', '0.010', origin(i))).toMatchObject({
        ok: false,
        error: { reason: 'ALREADY_APPLIED' },
      });
    expect((await place(ALICE, 'SELL', '30003', '0.010', { origin: { partition: 2, offset: '8' } })).ok).toBe(
      true,
    );
    await settle();
    expect(events.filter((e) => e.type === 'order.accepted')).toHaveLength(3);
  });

  it('rejects a GTX order that would take with POST_ONLY_WOULD_TAKE', async () => {
    await startEngine();
    await place(ALICE, 'SELL', '100', '1');
    const gtx = await place(BOB, 'BUY', '100', '1', { timeInForce: 'GTX' });
    expect(gtx).toMatchObject({
      ok: false,
      error: { reason: 'POST_ONLY_WOULD_TAKE', msg: 'post-only order would take liquidity' },
    });
    await settle();
    expect(byType('order.rejected')).toEqual([
      expect.objectContaining({ reason: 'POST_ONLY_WOULD_TAKE', user: BOB }),
    ]);
    expect(byType('trade')).toHaveLength(0);
  });

  it('refuses an order over the open-interest cap with the side, the interest, the cap and the delta', async () => {
    await startEngine();
    await place(ALICE, 'SELL', '100', '6000');
    await place(BOB, 'BUY', '100', '6000');
    // Long and short interest are 6000 of 10000; Alice's sell would all open (she is short).
    const over = await place(ALICE, 'SELL', '100', '4001');
    expect(over).toMatchObject({
      ok: false,
      error: {
        reason: 'OI_CAP_EXCEEDED',
        msg: 'order would raise open interest above its cap',
        details: { side: 'short', current: '6000', cap: '10000', requestedDelta: '4001' },
      },
    });
    await settle();
    expect(byType('order.rejected')).toEqual([
      expect.objectContaining({ reason: 'OI_CAP_EXCEEDED', user: ALICE }),
    ]);
  });

  it('a HALTed market refuses new orders; CLOSE cancels every open order', async () => {
    await startEngine();
    await place(ALICE, 'BUY', '90', '1');
    expect(await send({ type: 'market.status', status: 'HALT', actor: 'ops' })).toMatchObject({ ok: true });
    expect(await place(BOB, 'SELL', '90', '1')).toMatchObject({
      ok: false,
      error: { reason: 'MARKET_NOT_TRADING' },
    });
    expect(await send({ type: 'market.status', status: 'CLOSE', actor: 'ops' })).toMatchObject({ ok: true });
    await settle();
    expect(byType('order.canceled')).toEqual([expect.objectContaining({ user: ALICE })]);
    expect(byType('market.status').map((e) => e.status)).toEqual(['HALT', 'CLOSE']);
    // The cancel the closing made settles in Alice's partition like any other.
    expect(copies.filter(([, c]) => c.type === 'engine.event' && c.event.type === 'order.canceled')).toEqual([
      [ALICE, expect.objectContaining({ event: byType('order.canceled')[0] })],
    ]);
  });

  it.each([
    ['republishing every replayed input', true],
    ['publishing nothing for inputs the group had committed', false],
  ])(
    'a second engine restored from the snapshot and replay (%s) ends with the same book and no new trade ids',
    async (_, republish) => {
      const first = await startEngine(3);
      for (let i = 0; i < 5; i++) await place(ALICE, 'SELL', String(100 + i), '1');
      await place(BOB, 'BUY', '101', '1.5');
      await place(BOB, 'BUY', '95', '2');
      await settle();
      const book = first.shard.book('BTCUSDT')!;
      const bytes = Buffer.from(book.snapshot());
      const depth = [book.depth(BookSide.BUY), book.depth(BookSide.SELL)];
      const tradeIds = byType('trade').map((t) => t.tradeId);
      expect(tradeIds).toHaveLength(2);
      // Snapshots are written beside the turns: wait for the one after the 6th command (offsets
      // 0..5; the 7th is replayed).
      const partition = bus.partitionFor(TOPICS.engineCommands.name, 'BTCUSDT');
      let saved = await snapshots.latest(TOPICS.engineCommands.name, partition);
      for (let i = 0; i < 200 && saved?.offset !== '5'; i++) {
        await new Promise((r) => setTimeout(r, 5));
        saved = await snapshots.latest(TOPICS.engineCommands.name, partition);
      }
      expect(saved?.offset).toBe('5');

      // Close without a final snapshot, as a crash would: drop the repository's view by deleting the newest.
      await first.onModuleDestroy();
      engines.splice(engines.indexOf(first), 1);
      await db.dataSource.query(`DELETE FROM engine_snapshots WHERE "offset" > 5`);
      const before = events.length;
      const copiesBefore = copies.length;
      const second = await startEngine(3, republish);
      for (let i = 0; i < 200 && second.shard.book('BTCUSDT')?.seq !== book.seq; i++)
        await new Promise((r) => setTimeout(r, 5));
      const restored = second.shard.book('BTCUSDT')!;
      expect(Buffer.from(restored.snapshot()).equals(bytes)).toBe(true);
      expect([restored.depth(BookSide.BUY), restored.depth(BookSide.SELL)]).toEqual(depth);
      await settle();
      const replayed = events.slice(before);
      // The replayed command (offset 6) re-emits its events with the same ids; no new trade appears.
      // By default it was committed, so its events are known to be out: it re-emits none.
      const oldIds = new Set(events.slice(0, before).map((e) => e.id));
      if (!republish) expect(replayed).toEqual([]);
      else expect(replayed.length).toBeGreaterThan(0);
      expect(replayed.every((e) => oldIds.has(e.id))).toBe(true);
      // ...and the same events: book.delta's prevSeq chain came back with the snapshot.
      const old = new Map(events.slice(0, before).map((e) => [e.id, e]));
      expect(replayed.map((e) => old.get(e.id))).toEqual(replayed);
      if (republish) expect(replayed.map((e) => e.type)).toContain('book.delta');
      expect(replayed.filter((e) => e.type === 'trade')).toHaveLength(0);
      // Risk copies likewise: the same ids (the shards drop them), none when committed.
      const oldCopyIds = new Set(copies.slice(0, copiesBefore).map(([, c]) => c.id));
      const replayedCopies = copies.slice(copiesBefore);
      if (!republish) expect(replayedCopies).toEqual([]);
      expect(replayedCopies.every(([, c]) => oldCopyIds.has(c.id))).toBe(true);
      // Ids and users survived the snapshot: Alice can still cancel her orders.
      const cancel = await send({ type: 'order.cancelAll', user: ALICE });
      expect(cancel).toMatchObject({ ok: true, result: { canceled: 4 } });
    },
  );

  it.each([
    ['publishing nothing for inputs the group had committed', false],
    ['republishing every replayed input', true],
  ])(
    'a market listed at run time: a replay from before the listing rebuilds its book from the listing, not from the live list (%s)',
    async (_, republish) => {
      const NEW = { ...BTC, symbol: 'NEWUSDT', baseAsset: 'NEW' };
      const first = await startEngine();
      const add = { type: 'market.add', market: NEW, actor: 'ops' };
      expect(await send(add, 'NEWUSDT')).toMatchObject({ ok: true, result: { status: 'TRADING' } });
      expect(await place(ALICE, 'SELL', '100', '1', {}, 'NEWUSDT')).toMatchObject({
        ok: true,
      });
      const pause = { type: 'market.status', status: 'HALT', actor: 'ops' };
      expect(await send(pause, 'NEWUSDT')).toMatchObject({ ok: true });
      const { seq } = first.shard.book('NEWUSDT')!;
      const bytes = Buffer.from(first.shard.book('NEWUSDT')!.snapshot());
      // A crash with no snapshot since the start: the next owner replays the whole log.
      await first.onModuleDestroy();
      engines.splice(engines.indexOf(first), 1);
      await db.dataSource.query(`DELETE FROM engine_snapshots`);
      const listings = async () =>
        (await bus.endOffsets(TOPICS.markets.name)).reduce((n, e) => n + Number(e.offset), 0);
      const published = await listings();
      // Its process's list has the market as a compacted markets topic keeps it: paused.
      const registry = new MarketRegistry([BTC]);
      registry.upsert({ ...NEW, status: 'HALT' });
      const second = await startEngine(1000, republish, registry);
      for (let i = 0; i < 200 && second.shard.book('NEWUSDT')?.seq !== seq; i++)
        await new Promise((r) => setTimeout(r, 5));
      expect(Buffer.from(second.shard.book('NEWUSDT')!.snapshot()).equals(bytes)).toBe(true);
      // Committed inputs change nothing outside the books; republished ones say the same again.
      expect(await listings()).toBe(published + (republish ? 2 : 0));
      expect(await send(add, 'NEWUSDT')).toMatchObject({ ok: false, error: { reason: 'MARKET_EXISTS' } });
      expect(await send({ ...pause, status: 'TRADING' }, 'NEWUSDT')).toMatchObject({ ok: true });
      expect(await place(BOB, 'BUY', '100', '1', {}, 'NEWUSDT')).toMatchObject({
        ok: true,
        result: { status: 'FILLED' },
      });
    },
  );

  it('two engines in one group split the partitions; closing one hands its books to the other', async () => {
    const a = await startEngine();
    await place(ALICE, 'SELL', '100', '1');
    await place(BOB, 'BUY', '100', '0.4');
    await place(BOB, 'BUY', '99', '2');
    const depth = [
      a.shard.book('BTCUSDT')!.depth(BookSide.BUY),
      a.shard.book('BTCUSDT')!.depth(BookSide.SELL),
    ];
    const b = await startEngine();
    const owned = [...a.shard.ownedPartitions(), ...b.shard.ownedPartitions()].sort((x, y) => x - y);
    expect(owned).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(a.shard.ownedPartitions().length).toBeGreaterThan(0);
    expect(b.shard.ownedPartitions().length).toBeGreaterThan(0);
    await a.onModuleDestroy();
    engines.splice(engines.indexOf(a), 1);
    expect(a.shard.ownedPartitions()).toEqual([]);
    // The survivor rebuilds BTCUSDT from the snapshot the leaver stored on revocation.
    expect(await place(ALICE, 'SELL', '110', '1')).toMatchObject({ ok: true });
    const book = b.shard.book('BTCUSDT')!;
    expect(book.depth(BookSide.BUY)).toEqual(depth[0]);
    expect(book.depth(BookSide.SELL)).toEqual([...depth[1], { price: 1100, quantity: 1000, orders: 1 }]);
    await settle();
    expect(byType('trade')).toHaveLength(1);
  });
});
