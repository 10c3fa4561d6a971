/**
 * Replay benchmark (issue 18: a failed-over engine shard catches up at 100,000 inputs/s or more):
 * part of `nx run matching-engine:bench`, BENCH_MODE=short for CI.
 *
 * One partition gets W warm-up order commands (forwarded by risk: origin set, as in a cluster) and
 * an engine consumer applies them and snapshots; N more commands follow. A fresh consumer (a new
 * owner after a kill) restores the snapshot and replays the N through the shard's batched turns on
 * the memory bus, journaled as the embedded exchange runs it (the newest messages of a partition in
 * memory, older ones read back from the file and parsed, as after a restart or from Kafka),
 * publishing every event again: that is the row. A third owner then restores the
 * same snapshot after the second committed all N, as a failover finds them: their events are on the
 * log, so it applies them to the state only (the second row). The baseline, in the same run,
 * applies the same N parsed commands to a restored partition with EngineShard.apply alone (no bus,
 * no parsing, no publishing): the shard's ceiling. Rates are per wall second and per CPU second of
 * this process (a shared machine's wall time counts other work too). Output, last line: one JSON
 * object. Figures are reported, never enforced. `BENCH_CPU_PROF=DIR` writes a CPU profile of each
 * replay row alone (`profiledRow`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBus, type BusMessage } from '@perp/bus';
import { type EngineCommand, loadChain, TOPICS, topicPartitions } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { MarketsProjection } from '@perp/infrastructure';
import { Readiness } from '@perp/runtime';
import type { ShardSnapshotRepository } from '@perp/persistence';
import { profiledRow } from '@perp/testing';
import { EngineCommandsConsumer } from '../engine-commands.consumer';
import { MarketAdmin } from '../markets/market-admin';
import { EngineShard, type OrderCommand } from '../shard/engine-shard';

const SHORT = process.env.BENCH_MODE === 'short';
const WARM = SHORT ? 2_000 : 20_000;
const N = SHORT ? 20_000 : 200_000;
const TARGET = 100_000;
const SYMBOL = 'BTCUSDT';
const USERS = Array.from({ length: 8 }, (_, i) => `0x${String(i + 1).repeat(40)}`);

/** Snapshots in memory, as the Postgres repository stores them (latest by offset). */
class MemorySnapshots {
  private readonly rows = new Map<string, { offset: string; state: Buffer; version: number }>();
  async latest(topic: string, partition: number) {
    return this.rows.get(`${topic}/${partition}`);
  }
  async save(s: { topic: string; partition: number; offset: string; state: Buffer; version?: number }) {
    this.rows.set(`${s.topic}/${s.partition}`, { offset: s.offset, state: s.state, version: s.version ?? 1 });
  }
  async prune() {
    return 0;
  }
  /** Back to what `copy` held: the baseline restores the warm-up snapshot, not a later one. */
  copy(): Map<string, { offset: string; state: Buffer; version: number }> {
    return new Map(this.rows);
  }
  restore(rows: Map<string, { offset: string; state: Buffer; version: number }>): void {
    this.rows.clear();
    for (const [k, v] of rows) this.rows.set(k, v);
  }
}

/** Makers rest on a ladder of 20 ticks; every other command is a taker that crosses one of them. */
function command(i: number): EngineCommand {
  const maker = i % 2 === 0;
  const level = (i >> 1) % 20;
  return {
    id: `bench/${i}`,
    v: 1,
    time: 1_700_000_000_000 + i,
    type: 'order.place',
    symbol: SYMBOL,
    orderId: randomUUID(),
    clientOrderId: `r${i}`,
    user: USERS[i % USERS.length]!,
    side: maker ? 'SELL' : 'BUY',
    orderType: 'LIMIT',
    timeInForce: 'GTC',
    price: String(50_000 + level),
    quantity: '0.001',
    reduceOnly: false,
    workingType: 'CONTRACT_PRICE',
    priceProtect: false,
    selfTradePreventionMode: 'NONE',
    frozenMargin: '0',
    origin: { partition: 0, offset: String(i) },
  } as EngineCommand;
}

async function main(): Promise<void> {
  const chain = loadChain('deploy', 'devnet');
  const registry = new MarketRegistry(chain.markets);
  const dir = mkdtempSync(join(tmpdir(), 'engine-replay-'));
  const bus = new MemoryBus({ topics: topicPartitions(), replyTopic: TOPICS.replies.name, journal: { dir } });
  await bus.connect();
  const memory = new MemorySnapshots();
  const snapshots = memory as unknown as ShardSnapshotRepository;
  // The bench bus's markets topic is empty: read at once.
  const projection = new MarketsProjection(bus, registry, new Readiness());
  projection.onModuleInit();
  await projection.ready();
  const consumer = () => {
    process.env.ENGINE_SNAPSHOT_EVERY = String(10 * (WARM + N));
    process.env.ENGINE_SNAPSHOT_INTERVAL_MS = String(3_600_000);
    const c = new EngineCommandsConsumer(
      bus,
      projection,
      new MarketAdmin(bus, registry),
      registry,
      snapshots,
    );
    delete process.env.ENGINE_SNAPSHOT_EVERY;
    delete process.env.ENGINE_SNAPSHOT_INTERVAL_MS;
    return c;
  };
  const partition = bus.partitionFor(TOPICS.engineCommands.name, SYMBOL);
  const until = async (c: EngineCommandsConsumer, offset: bigint) => {
    while ((c.shard.appliedOffset(partition) ?? -1n) < offset) await new Promise((r) => setImmediate(r));
  };

  const commands = Array.from({ length: WARM + N }, (_, i) => command(i));
  const published: BusMessage[] = [];
  const publish = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const r = await bus.publish(TOPICS.engineCommands.name, SYMBOL, commands[i]);
      published.push({ ...r, key: SYMBOL, value: commands[i], headers: {}, timestamp: commands[i]!.time });
    }
  };

  // The first owner: applies the warm-up, snapshots, goes away.
  await publish(0, WARM);
  const first = consumer();
  first.onModuleInit();
  await first.onApplicationBootstrap();
  await until(first, BigInt(published[WARM - 1]!.offset));
  await first.shard.snapshotAll();
  await first.onModuleDestroy();
  const warm = memory.copy();
  await publish(WARM, WARM + N);

  // The row: a new owner restores the snapshot and replays N inputs through its turns.
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const second = consumer();
  await profiledRow('engine-replay', async () => {
    second.onModuleInit();
    await second.onApplicationBootstrap();
    await until(second, BigInt(published[WARM + N - 1]!.offset));
  });
  const replaySeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const replayCpu = cpuSeconds(c0);
  await second.onModuleDestroy();

  // The failover row: the second owner committed all N; a third restores the warm-up snapshot and
  // replays the N knowing their events are on the log (the group's commit): state only.
  memory.restore(warm);
  const c2 = process.cpuUsage();
  const t2 = process.hrtime.bigint();
  const third = consumer();
  await profiledRow('engine-committed-replay', async () => {
    third.onModuleInit();
    await third.onApplicationBootstrap();
    await until(third, BigInt(published[WARM + N - 1]!.offset));
  });
  const committedSeconds = Number(process.hrtime.bigint() - t2) / 1e9;
  const committedCpu = cpuSeconds(c2);
  await third.onModuleDestroy();

  // The baseline: the same N inputs applied to the restored state, nothing else. The bus's log
  // goes first: a heap holding a million events would slow the baseline's garbage collection.
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
  memory.restore(warm);
  const shard = new EngineShard(bus, registry, snapshots);
  await shard.assigned([{ topic: TOPICS.engineCommands.name, partition }], {
    seek: () => undefined,
    committedAtAssignment: () => undefined,
  } as never);
  const c1 = process.cpuUsage();
  const t1 = process.hrtime.bigint();
  for (let i = WARM; i < WARM + N; i++) shard.apply(published[i]!, commands[i] as OrderCommand);
  const applySeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const applyCpu = cpuSeconds(c1);

  const row = (name: string, wall: number, cpu: number) =>
    `${name.padEnd(44)} ${String(N).padStart(8)} inputs ${wall.toFixed(3).padStart(8)} s ${rate(wall)
      .toLocaleString('en')
      .padStart(10)} inputs/s ${rate(cpu).toLocaleString('en').padStart(10)} inputs/CPU-s`;
  console.log(row('engine replay from a snapshot (memory bus)', replaySeconds, replayCpu));
  console.log(row('same, inputs committed (failover): state only', committedSeconds, committedCpu));
  console.log(row('baseline: EngineShard.apply alone', applySeconds, applyCpu));
  // On a shared machine wall time counts other processes' work: CPU time is this process's own.
  const replayRate = rate(replaySeconds);
  const replayPerCpuSecond = rate(replayCpu);
  const committedRate = rate(committedSeconds);
  const committedPerCpuSecond = rate(committedCpu);
  const met = (wall: number, cpu: number) => (Math.max(wall, cpu) >= TARGET ? 'met' : 'NOT met');
  console.log(
    `replay / baseline (CPU): ${(applyCpu / replayCpu).toFixed(2)}, committed replay / baseline: ${(applyCpu / committedCpu).toFixed(2)}; target ${TARGET.toLocaleString('en')} inputs/s: replay ${met(replayRate, replayPerCpuSecond)}, committed replay ${met(committedRate, committedPerCpuSecond)}`,
  );
  console.log(
    JSON.stringify({
      bench: 'engine-replay',
      inputs: N,
      replayRate,
      replayPerCpuSecond,
      committedReplayRate: committedRate,
      committedReplayPerCpuSecond: committedPerCpuSecond,
      applyRate: rate(applySeconds),
      applyPerCpuSecond: rate(applyCpu),
      target: TARGET,
    }),
  );
}

const rate = (seconds: number) => Math.round(N / seconds);

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
