import { type KafkaMock, startKafkaMock, failOnOpenKafkaClients } from '@perp/testing';
import type { BusMessage } from '../bus';
import { silentLogger } from '../logger';
import { idleWait } from './fetch-coalescing';
import { KafkaBus } from './kafka-bus';

failOnOpenKafkaClients();

const TUNING = {
  sessionTimeoutMs: 2_500,
  heartbeatIntervalMs: 250,
  rebalanceTimeoutMs: 3_000,
  maxWaitTimeMs: 20,
};

describe('idle fetch backoff', () => {
  it('keeps the configured wait through 15 empty answers in a row, then doubles it up to 100 ms', () => {
    const waits = Array.from({ length: 22 }, (_, empty) => idleWait(10, empty));
    expect(waits.slice(0, 16)).toEqual(Array(16).fill(10));
    expect(waits.slice(16)).toEqual([20, 40, 80, 100, 100, 100]);
  });

  it('leaves a wait at or above the cap as configured', () => {
    expect(idleWait(100, 40)).toBe(100);
    expect(idleWait(500, 40)).toBe(500);
    expect(idleWait(0, 15)).toBe(0);
  });
});

describe('KafkaBus on the librdkafka mock: record batches per fetch', () => {
  let mock: KafkaMock;
  let bus: KafkaBus;
  const topic = `coalesce-${Date.now().toString(36)}`;

  beforeAll(async () => {
    mock = await startKafkaMock();
    bus = new KafkaBus({
      brokers: mock.brokers,
      clientId: 'coalesce',
      topics: { [topic]: 1 },
      logger: silentLogger,
      consumer: TUNING,
    });
    await bus.connect();
  });

  afterAll(async () => {
    await bus?.close();
    await mock?.stop();
  });

  /** Every batch a new group's batch handler is given, until it has seen `count` messages. */
  async function batchesOf(count: number): Promise<number[][]> {
    const batches: number[][] = [];
    let seen = 0;
    let done = () => {};
    const all = new Promise<void>((r) => (done = r));
    const sub = await bus.subscribe<{ n: number }>({
      groupId: `reader-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
      topics: [topic],
      start: 'earliest',
      batchHandler: (ms: readonly BusMessage<{ n: number }>[]) => {
        batches.push(ms.map((m) => m.value.n));
        if ((seen += ms.length) >= count) done();
      },
    });
    await all;
    await sub.close();
    return batches;
  }

  it('hands a consumer the backlog of many produce requests in one batch (the mock serves one record batch per fetch)', async () => {
    // Awaited one by one: 20 produce requests, 20 record batches on the partition.
    for (let n = 0; n < 20; n++) await bus.publish(topic, 'k', { n });
    const batches = await batchesOf(20);
    expect(batches.flat()).toEqual([...Array(20).keys()]);
    expect(batches.length).toBeLessThanOrEqual(2);
  }, 30_000);

  it('sends the publishes of one turn of the event loop in one produce request', async () => {
    const producer = (bus as unknown as { producer: { sendBatch: (...a: unknown[]) => unknown } }).producer;
    const spy = jest.spyOn(producer, 'sendBatch');
    await Promise.all([20, 21, 22, 23].map((n) => bus.publish(topic, `k${n}`, { n })));
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});
