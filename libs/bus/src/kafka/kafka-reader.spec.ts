import { eventually, type KafkaMock, startKafkaMock, failOnOpenKafkaClients } from '@perp/testing';
import { KafkaJSProtocolError } from 'kafkajs';
import Broker from 'kafkajs/src/broker';
import type { BusMessage } from '../bus';
import { silentLogger } from '../logger';
import { KafkaBus } from './kafka-bus';

failOnOpenKafkaClients();

/** Readers without a group on the mock: what the conformance suite cannot make a broker do. */
describe('KafkaReader on the librdkafka mock cluster', () => {
  let mock: KafkaMock;
  let bus: KafkaBus;
  const topic = `reader-${Date.now().toString(36)}`;

  beforeAll(async () => {
    mock = await startKafkaMock();
    bus = new KafkaBus({
      brokers: mock.brokers,
      clientId: 'reader-spec',
      topics: { [topic]: 2 },
      logger: silentLogger,
      consumer: { maxWaitTimeMs: 50 },
    });
    await bus.connect();
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await bus?.close();
    await mock?.stop();
  });

  it('a broker error (a leader moved) stops the fetches, refreshes the metadata and goes on from the same positions', async () => {
    const keys = ['a', 'b', 'c', 'd'];
    for (let i = 0; i < 8; i++) await bus.publish(topic, keys[i % 4]!, { i });
    const got: number[] = [];
    const reader = await bus.subscribe<{ i: number }>({
      groupId: 'leader-moved',
      topics: [topic],
      assign: 'all',
      batchHandler: (ms: readonly BusMessage<{ i: number }>[]) => void got.push(...ms.map((m) => m.value.i)),
    });
    await eventually(() => got.length >= 8, 20_000, 10);
    // The next fetch answers as a broker that is no longer the leader would.
    const fetch = Broker.prototype.fetch;
    let refused = 0;
    jest.spyOn(Broker.prototype, 'fetch').mockImplementation(function (this: Broker, request) {
      if (refused++ === 0)
        return Promise.reject(
          new KafkaJSProtocolError(
            Object.assign(new Error('This server is not the leader for that topic-partition'), {
              type: 'NOT_LEADER_FOR_PARTITION',
              code: 6,
              retriable: true,
            }),
          ),
        );
      return fetch.call(this, request);
    });
    try {
      for (let i = 8; i < 16; i++) await bus.publish(topic, keys[i % 4]!, { i });
      await eventually(() => got.length >= 16, 20_000, 10);
      expect(refused).toBeGreaterThan(1);
      await new Promise((r) => setTimeout(r, 200));
      expect([...got].sort((x, y) => x - y)).toEqual([...Array(16).keys()]);
    } finally {
      jest.restoreAllMocks();
      await reader.close();
    }
  }, 30_000);

  it('a position past the end of the log (retention passed it) goes on from the first offset kept', async () => {
    const got: BusMessage<{ i: number }>[] = [];
    const reader = await bus.subscribe<{ i: number }>({
      groupId: 'out-of-range',
      topics: [topic],
      assign: [{ topic, partition: 0 }],
      onAssigned: (_, self) => self.seek({ topic, partition: 0, offset: '100000' }),
      handler: (m) => void got.push(m),
    });
    try {
      const kept = (await bus.endOffsets(topic)).find((e) => e.partition === 0)!;
      await eventually(() => got.length >= Number(kept.offset), 20_000, 10);
      expect(got.map((m) => m.offset)).toEqual([...Array(Number(kept.offset)).keys()].map(String));
    } finally {
      await reader.close();
    }
  }, 30_000);
});
