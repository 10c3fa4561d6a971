/**
 * Risk replay benchmark (issue 18: a failed-over risk shard catches up at 100,000 inputs/s or
 * more): `nx run risk:bench`, BENCH_MODE=short for CI. The risk side of
 * apps/matching-engine/src/bench/replay.bench.ts, with the same rows.
 *
 * One partition gets two funded users and W warm-up inputs, then N more, in cycles of four: each
 * user's LIMIT order (margin frozen, engine command forwarded) and the engine's two copies of the
 * trade between them (maker and taker settlement: fee, position, balance; the positions open and
 * close in turn). A first consumer applies the warm-up and snapshots; a second (a new owner after a
 * kill) restores the snapshot and replays the N through batched turns on the memory bus (journaled
 * as the embedded exchange runs it: the newest messages of a partition in memory, older ones read
 * back from the file and parsed, as after a restart or from Kafka), writing
 * the hot store and publishing everything again: the first row. A third restores the same snapshot
 * after the second committed all N, as a failover finds them, and applies them to the state only:
 * the second row. The baseline applies the same parsed commands to a restored partition with
 * `applyRiskCommand` alone (no bus, hot store or parsing). Rates per wall second and per CPU second
 * of this process. The committed replay (a fourth owner) and the baseline run once more under V8's
 * sampling heap profiler (objects the collections reclaim counted too) for the bytes they allocate
 * per input: a figure the shared machine's speed does not move, where its rates differ by a third
 * from run to run. Output, last line: one JSON object. Figures are reported, never enforced.
 * `BENCH_CPU_PROF=DIR` writes a CPU profile of each replay row alone (`profiledRow`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBus } from '@perp/bus';
import { MemoryHotStore } from '@perp/cache';
import { loadChain, TOPICS, topicPartitions } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { MarketsProjection } from '@perp/infrastructure';
import { Readiness } from '@perp/runtime';
import type { ShardSnapshotRepository } from '@perp/persistence';
import { profiledRow } from '@perp/testing';
import { RiskCommandsConsumer } from '../risk-commands.consumer';
import { ALICE, BOB, command, deposit, MemorySnapshots, T0 } from './trading-stream';
import { applyRiskCommand } from '../shard/handlers';
import { RiskPartition } from '../shard/risk-partition';
import { Output } from '../shard/turn-output';

const SHORT = process.env.BENCH_MODE === 'short';
const WARM = SHORT ? 2_000 : 20_000;
const N = SHORT ? 20_000 : 200_000;
const TARGET = 100_000;
async function main(): Promise<void> {
  const chain = loadChain('deploy', 'devnet');
  const registry = new MarketRegistry(chain.markets);
  const dir = mkdtempSync(join(tmpdir(), 'risk-replay-'));
  const bus = new MemoryBus({ topics: topicPartitions(), replyTopic: TOPICS.replies.name, journal: { dir } });
  await bus.connect();
  const memory = new MemorySnapshots();
  const snapshots = memory as unknown as ShardSnapshotRepository;
  // The bench bus's markets topic is empty: read at once.
  const projection = new MarketsProjection(bus, registry, new Readiness());
  projection.onModuleInit();
  await projection.ready();
  const consumer = () => {
    process.env.RISK_SNAPSHOT_EVERY = String(10 * (WARM + N));
    process.env.RISK_SNAPSHOT_INTERVAL_MS = String(3_600_000);
    const c = new RiskCommandsConsumer(bus, projection, registry, chain, new MemoryHotStore(), snapshots);
    delete process.env.RISK_SNAPSHOT_EVERY;
    delete process.env.RISK_SNAPSHOT_INTERVAL_MS;
    return c;
  };
  const partition = bus.partitionFor(TOPICS.riskCommands.name, ALICE);
  const until = async (c: RiskCommandsConsumer, offset: bigint) => {
    while ((c.shard.appliedOffset(partition) ?? -1n) < offset) await new Promise((r) => setImmediate(r));
  };

  const commands = [
    deposit(ALICE, 0),
    deposit(BOB, 1),
    ...Array.from({ length: WARM + N - 2 }, (_, i) => command(i)),
  ];
  const offsets: string[] = [];
  const publish = async (from: number, to: number) => {
    for (let i = from; i < to; i++)
      offsets.push((await bus.publish(TOPICS.riskCommands.name, ALICE, commands[i])).offset);
  };

  // The first owner: applies the warm-up, snapshots, goes away.
  await publish(0, WARM);
  const first = consumer();
  first.onModuleInit();
  await first.onApplicationBootstrap();
  await until(first, BigInt(offsets[WARM - 1]!));
  await first.shard.snapshotAll();
  await first.onModuleDestroy();
  const warm = memory.copy();
  await publish(WARM, WARM + N);
  const last = BigInt(offsets[WARM + N - 1]!);

  // Row 1: a new owner restores the snapshot and replays N inputs, publishing everything.
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const second = consumer();
  await profiledRow('risk-replay', async () => {
    second.onModuleInit();
    await second.onApplicationBootstrap();
    await until(second, last);
  });
  const replaySeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const replayCpu = cpuSeconds(c0);
  const expected = second.shard.book(partition)!.balances(ALICE).walletBalance.toFixed();
  await second.onModuleDestroy();

  // Row 2: the N were committed by the second owner; a third replays them to the state only.
  memory.restore(warm);
  const c1 = process.cpuUsage();
  const t1 = process.hrtime.bigint();
  const third = consumer();
  await profiledRow('risk-committed-replay', async () => {
    third.onModuleInit();
    await third.onApplicationBootstrap();
    await until(third, last);
  });
  const committedSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const committedCpu = cpuSeconds(c1);
  const got = third.shard.book(partition)!.balances(ALICE).walletBalance.toFixed();
  if (got !== expected)
    throw new Error(`committed replay ended at wallet ${got}, the full replay at ${expected}`);
  await third.onModuleDestroy();
  // The same once more under the heap sampler: what a failover's replay allocates per input.
  memory.restore(warm);
  const fourth = consumer();
  const committedBytes =
    (await allocatedBytes(async () => {
      fourth.onModuleInit();
      await fourth.onApplicationBootstrap();
      await until(fourth, last);
    })) / N;
  await fourth.onModuleDestroy();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });

  // Baseline: the same commands applied to the restored partition, nothing else.
  const snap = warm.get(`${TOPICS.riskCommands.name}/${partition}`)!;
  const options = {
    feeTiers: chain.feeTiers,
    asset: chain.settlementAsset,
  };
  const asset = chain.settlementAsset ?? 'USDT';
  const restored = () => RiskPartition.deserialize(partition, snap.state, registry, options);
  const applyAll = (p: RiskPartition) => {
    for (let i = WARM; i < WARM + N; i++) {
      const m = {
        topic: TOPICS.riskCommands.name,
        partition,
        offset: offsets[i]!,
        key: ALICE,
        value: commands[i],
        headers: {},
        timestamp: T0,
      };
      applyRiskCommand({ p, m, out: new Output(), markets: registry, asset }, commands[i]!);
    }
    if (p.book.balances(ALICE).walletBalance.toFixed() !== expected)
      throw new Error('baseline ended elsewhere');
  };
  const timed = restored();
  const c2 = process.cpuUsage();
  const t2 = process.hrtime.bigint();
  applyAll(timed);
  const applySeconds = Number(process.hrtime.bigint() - t2) / 1e9;
  const applyCpu = cpuSeconds(c2);
  const again = restored();
  const applyBytes = (await allocatedBytes(async () => applyAll(again))) / N;

  const row = (name: string, wall: number, cpu: number) =>
    `${name.padEnd(48)} ${String(N).padStart(8)} inputs ${wall.toFixed(3).padStart(8)} s ${rate(wall)
      .toLocaleString('en')
      .padStart(10)} inputs/s ${rate(cpu).toLocaleString('en').padStart(10)} inputs/CPU-s`;
  console.log(row('risk replay from a snapshot (memory bus)', replaySeconds, replayCpu));
  console.log(row('same, inputs committed (failover): state only', committedSeconds, committedCpu));
  console.log(row('baseline: applyRiskCommand alone', applySeconds, applyCpu));
  const kb = (bytes: number) => (bytes / 1024).toFixed(2).padStart(8);
  console.log(`${'committed replay, allocated per input'.padEnd(48)} ${kb(committedBytes)} KB`);
  console.log(`${'baseline, allocated per input'.padEnd(48)} ${kb(applyBytes)} KB`);
  const met = (wall: number, cpu: number) => (Math.max(rate(wall), rate(cpu)) >= TARGET ? 'met' : 'NOT met');
  console.log(
    `replay / baseline (CPU): ${(applyCpu / replayCpu).toFixed(2)}, committed replay / baseline: ${(applyCpu / committedCpu).toFixed(2)}; target ${TARGET.toLocaleString('en')} inputs/s: replay ${met(replaySeconds, replayCpu)}, committed replay ${met(committedSeconds, committedCpu)}`,
  );
  console.log(
    JSON.stringify({
      bench: 'risk-replay',
      inputs: N,
      replayRate: rate(replaySeconds),
      replayPerCpuSecond: rate(replayCpu),
      committedReplayRate: rate(committedSeconds),
      committedReplayPerCpuSecond: rate(committedCpu),
      applyRate: rate(applySeconds),
      applyPerCpuSecond: rate(applyCpu),
      committedReplayKbPerInput: Number((committedBytes / 1024).toFixed(2)),
      applyKbPerInput: Number((applyBytes / 1024).toFixed(2)),
      target: TARGET,
    }),
  );
}

const rate = (seconds: number) => Math.round(N / seconds);

/** Bytes `run` allocates, garbage included: V8's sampling heap profiler, every 4 KB on average. */
async function allocatedBytes(run: () => Promise<void>): Promise<number> {
  const session = new Session();
  session.connect();
  // This thread's own session answers synchronously: each post has called back when it returns.
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await run();
  let bytes = 0;
  session.post('HeapProfiler.stopSampling', (err, r) => {
    if (err) throw err;
    // Each node's selfSize is its sampled allocations scaled up to an estimate of all of them.
    const add = (n: typeof r.profile.head): void => {
      bytes += n.selfSize;
      for (const c of n.children) add(c);
    };
    add(r.profile.head);
  });
  session.disconnect();
  return bytes;
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
