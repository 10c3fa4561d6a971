import { MemoryBus, silentLogger } from '@perp/bus';
import { MemoryHotStore } from '@perp/cache';
import {
  CLOSED_ORDER_TTL_MS,
  HOT_KEYS,
  loadChain,
  RISK_TOTALS_KEY,
  type RiskCommand,
  TOPICS,
  topicPartitions,
} from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { MarketsProjection } from '@perp/infrastructure';
import type { ShardSnapshotRepository } from '@perp/persistence';
import { Readiness } from '@perp/runtime';
import { eventually } from '@perp/testing';
import { ALICE, BOB, command, deposit, MemorySnapshots } from './bench/trading-stream';
import { RiskCommandsConsumer } from './risk-commands.consumer';

/** Counts the account hash writes per key. */
class CountingHotStore extends MemoryHotStore {
  readonly hashWrites = new Map<string, number>();
  override hupdate(...args: Parameters<MemoryHotStore['hupdate']>) {
    this.hashWrites.set(args[0], (this.hashWrites.get(args[0]) ?? 0) + 1);
    return super.hupdate(...args);
  }
}

describe('RiskCommandsConsumer: a new owner replaying inputs the group committed', () => {
  const WARM = 22;
  // More than one turn's worth (the memory bus hands a consumer at most 1,000 inputs per turn).
  const MORE = 2_600;
  const chain = loadChain('deploy', 'devnet');
  const registry = new MarketRegistry(chain.markets);
  let bus: MemoryBus;
  let projection: MarketsProjection;
  const memory = new MemorySnapshots();

  beforeAll(async () => {
    bus = new MemoryBus({ topics: topicPartitions(), replyTopic: TOPICS.replies.name, logger: silentLogger });
    await bus.connect();
    projection = new MarketsProjection(bus, registry, new Readiness());
    projection.onModuleInit();
    await projection.ready();
  });
  afterAll(() => bus.close());

  const consumer = (hot: MemoryHotStore) => {
    process.env.RISK_SNAPSHOT_EVERY = '1000000';
    process.env.RISK_SNAPSHOT_INTERVAL_MS = '3600000';
    try {
      return new RiskCommandsConsumer(
        bus,
        projection,
        registry,
        chain,
        hot,
        memory as unknown as ShardSnapshotRepository,
      );
    } finally {
      delete process.env.RISK_SNAPSHOT_EVERY;
      delete process.env.RISK_SNAPSHOT_INTERVAL_MS;
    }
  };

  it('projects each account once, when the replay reaches the commit, as the owner before it had', async () => {
    const partition = bus.partitionFor(TOPICS.riskCommands.name, ALICE);
    expect(bus.partitionFor(TOPICS.riskCommands.name, BOB)).not.toBe(partition);
    // The last thousand come two closed-order lifetimes later: what closed before them is not
    // held for the store by the replay (it would have left a store by then).
    const GAP = 2 * CLOSED_ORDER_TTL_MS;
    const gapAt = WARM + MORE - 1_000;
    const later = (c: RiskCommand): RiskCommand =>
      c.type === 'engine.event'
        ? { ...c, time: c.time + GAP, event: { ...c.event, time: c.event.time + GAP } }
        : { ...c, time: c.time + GAP };
    const inputs = [
      deposit(ALICE, 0),
      deposit(BOB, 1),
      ...Array.from({ length: WARM + MORE }, (_, i) => (i < gapAt ? command(i) : later(command(i)))),
    ];
    // Every input on ALICE's partition: the copies of BOB's fills too, as in the benchmark.
    let last = '';
    const publish = async (from: number, to: number) => {
      for (let i = from; i < to; i++)
        last = (await bus.publish(TOPICS.riskCommands.name, ALICE, inputs[i])).offset;
    };
    const until = async (c: RiskCommandsConsumer) =>
      eventually(() => (c.shard.appliedOffset(partition) ?? -1n) >= BigInt(last), 20_000);

    // The first owner applies the warm-up and leaves a snapshot of it.
    await publish(0, 2 + WARM);
    const first = consumer(new MemoryHotStore());
    first.onModuleInit();
    await first.onApplicationBootstrap();
    await until(first);
    await first.shard.snapshotAll();
    await first.onModuleDestroy();
    const warm = memory.copy();

    // The second applies the rest, publishes and commits it: its store is the one to match.
    await publish(2 + WARM, inputs.length);
    const ahead = new MemoryHotStore();
    const second = consumer(ahead);
    second.onModuleInit();
    await second.onApplicationBootstrap();
    await until(second);
    await second.onModuleDestroy();

    // A third restores the same snapshot into an empty store and replays those inputs, state only.
    memory.restore(warm);
    const hot = new CountingHotStore();
    const third = consumer(hot);
    third.onModuleInit();
    await third.onApplicationBootstrap();
    await until(third);
    const key = HOT_KEYS.account(ALICE);
    // Written at the end of the replay's last turn, which applied its inputs first.
    const totals = RISK_TOTALS_KEY(partition);
    const expected = await ahead.get(totals);
    for (let waited = 0; (await hot.get(totals)) !== expected && waited < 20_000; waited += 10)
      await new Promise((r) => setTimeout(r, 10));
    expect(await hot.get(totals)).toBe(expected);
    expect(await hot.hgetall(key)).toEqual(await ahead.hgetall(key));
    expect(await hot.hgetall(HOT_KEYS.account(BOB))).toEqual(await ahead.hgetall(HOT_KEYS.account(BOB)));
    // The snapshot's projection, written on restore, then the replay's, once.
    expect(hot.hashWrites.get(key)).toBe(2);
    const orderIds = (from: number, to: number) =>
      inputs.slice(2 + from, 2 + to).flatMap((c) => (c.type === 'order.new' ? [c.orderId] : []));
    // Closed after the gap: as the owner before wrote them; before it, not written again.
    for (const id of orderIds(gapAt, gapAt + 100))
      expect(await hot.get(HOT_KEYS.closedOrder(id))).toBe(await ahead.get(HOT_KEYS.closedOrder(id)));
    for (const id of orderIds(gapAt - 100, gapAt - 4)) {
      expect(await ahead.get(HOT_KEYS.closedOrder(id))).toBeDefined();
      expect(await hot.get(HOT_KEYS.closedOrder(id))).toBeUndefined();
    }
    await third.onModuleDestroy();
  });
});
