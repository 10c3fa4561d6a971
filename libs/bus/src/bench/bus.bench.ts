/**
 * Publish -> consume through one partition, per adapter: throughput (publisher flat out) and latency
 * (one message in flight at a time). `nx run bus:bench`; BENCH_MODE=short for CI. Kafka runs on a
 * kcat mock cluster it starts, or on KAFKA_BROKERS. The last line is the figures as JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startKafkaMock } from '@perp/testing';
import type { Bus, BusMessage } from '../bus';
import { KafkaBus } from '../kafka/kafka-bus';
import { silentLogger } from '../logger';
import { MemoryBus } from '../memory/memory-bus';

const SHORT = process.env.BENCH_MODE === 'short';
const SIZES = SHORT
  ? { memory: 300_000, journal: 100_000, kafka: 5_000, memoryPings: 20_000, kafkaPings: 200 }
  : { memory: 3_000_000, journal: 1_000_000, kafka: 100_000, memoryPings: 200_000, kafkaPings: 2_000 };
const TOPIC = 'bench';

interface Figures {
  messages: number;
  msgPerSec: number;
  /** Publish -> handler latency with one message in flight. */
  p50Ms: number;
  p99Ms: number;
}

interface Sample {
  t: number;
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/**
 * One subscription (a Kafka group join is seconds on the mock) serves both phases: flat out, then
 * one message in flight at a time.
 */
async function measure(name: string, bus: Bus, n: number, pings: number, window: number): Promise<Figures> {
  await bus.connect();
  let onMessage: (m: BusMessage<Sample>) => void = () => undefined;
  const sub = await bus.subscribe<Sample>({
    groupId: `bench-${Date.now()}`,
    topics: [TOPIC],
    start: 'latest',
    handler: (m) => onMessage(m),
  });
  try {
    // Throughput: publish n (awaiting every `window`), until the last one is consumed.
    let received = 0;
    const all = new Promise<void>((resolve) => (onMessage = () => void (++received === n && resolve())));
    const started = performance.now();
    let last: Promise<unknown> = Promise.resolve();
    for (let i = 0; i < n; i++) {
      last = bus.publish(TOPIC, 'one-key', { t: i });
      if (i % window === window - 1) await last;
    }
    await last;
    await all;
    const msgPerSec = n / ((performance.now() - started) / 1000);

    // Latency: publish, wait for the handler, repeat.
    const samples = new Float64Array(pings);
    let i = 0;
    let next: () => void = () => undefined;
    onMessage = (m) => {
      samples[i++] = performance.now() - m.value.t;
      next();
    };
    for (let k = 0; k < pings; k++) {
      const consumed = new Promise<void>((resolve) => (next = resolve));
      await bus.publish(TOPIC, 'one-key', { t: performance.now() });
      await consumed;
    }
    samples.sort();

    const f = {
      messages: n,
      msgPerSec: Math.round(msgPerSec),
      p50Ms: round(percentile(samples, 0.5), 4),
      p99Ms: round(percentile(samples, 0.99), 4),
    };
    console.log(
      `${name.padEnd(16)} ${f.msgPerSec.toLocaleString('en').padStart(11)} msg/s   p50 ${f.p50Ms} ms   p99 ${f.p99Ms} ms   (${n.toLocaleString('en')} messages, ${pings.toLocaleString('en')} pings)`,
    );
    return f;
  } finally {
    await sub.close();
    await bus.close();
  }
}

async function main(): Promise<void> {
  console.log(`bus benchmark (${SHORT ? 'short' : 'full'} mode): publish -> consume through one partition`);
  const results: Record<string, unknown> = { mode: SHORT ? 'short' : 'full' };

  results.memory = await measure(
    'memory',
    new MemoryBus({ topics: { [TOPIC]: 1 }, logger: silentLogger }),
    SIZES.memory,
    SIZES.memoryPings,
    1024,
  );

  const dir = mkdtempSync(join(tmpdir(), 'bus-bench-'));
  try {
    results.memoryJournal = await measure(
      'memory+journal',
      new MemoryBus({ topics: { [TOPIC]: 1 }, logger: silentLogger, journal: { dir, fsync: 'interval' } }),
      SIZES.journal,
      SIZES.memoryPings / 10,
      1024,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const real = process.env.KAFKA_BROKERS;
  const mock = real ? undefined : await startKafkaMock();
  try {
    const brokers = real ? real.split(',') : mock!.brokers;
    const kafka = new KafkaBus({
      brokers,
      clientId: 'bus-bench',
      topics: { [TOPIC]: 1 },
      logger: silentLogger,
      consumer: real
        ? { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 }
        : { sessionTimeoutMs: 2_500, heartbeatIntervalMs: 250, maxWaitTimeMs: 50 },
    });
    results.kafka = {
      broker: real ? real : 'kcat mock',
      ...(await measure(`kafka (${real ? 'broker' : 'mock'})`, kafka, SIZES.kafka, SIZES.kafkaPings, 1000)),
    };
  } finally {
    await mock?.stop();
  }
  console.log(JSON.stringify(results));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
