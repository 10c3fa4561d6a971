import { eventually, type KafkaMock, startKafkaMock, failOnOpenKafkaClients } from '@perp/testing';
import ConsumerGroup from 'kafkajs/src/consumer/consumerGroup';
import type { BusMessage, Subscription } from '../bus';
import { silentLogger } from '../logger';
import { KafkaBus } from './kafka-bus';
import { createKafka } from './kafka-client';
import { fetchOnlyFromServingBrokers } from './leader-fetchers';

failOnOpenKafkaClients();

/**
 * A group consumer's fetch loops on a cluster of three brokers (the mock's default). The mock
 * creates a topic on first use with four partitions whose leaders it picks at random: the suite
 * takes one topic led by fewer brokers than the cluster has, and one led by all three.
 */
describe('fetch loops only for the brokers that serve an assigned partition', () => {
  let mock: KafkaMock;
  let bus: KafkaBus;
  let some = '';
  let every = '';
  const leaders = new Map<string, string[]>();

  beforeAll(async () => {
    mock = await startKafkaMock();
    const kafka = createKafka({ brokers: mock.brokers, clientId: 'leaders', logger: silentLogger });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    const admin = kafka.admin();
    await Promise.all([producer.connect(), admin.connect()]);
    try {
      const suffix = Date.now().toString(36);
      for (let i = 0; i < 40 && !(some && every); i++) {
        const topic = `leaders-${i}-${suffix}`;
        await producer.send({ topic, messages: [{ value: JSON.stringify({ n: -1 }) }] });
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        const led = [...new Set(topics[0]!.partitions.map((p) => String(p.leader)))].sort();
        leaders.set(topic, led);
        if (led.length < mock.brokers.length) some ||= topic;
        else every ||= topic;
      }
    } finally {
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    }
    if (!some || !every) throw new Error('the mock never led a topic from fewer (or all) brokers');
    bus = new KafkaBus({
      brokers: mock.brokers,
      clientId: 'leader-fetchers',
      topics: { [some]: 4, [every]: 4 },
      logger: silentLogger,
      consumer: { sessionTimeoutMs: 3_000, heartbeatIntervalMs: 300, maxWaitTimeMs: 20 },
    });
    await bus.connect();
  }, 60_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await bus?.close();
    await mock?.stop();
  });

  /** Consumes `topic` in a group of one; returns the brokers its fetch loops asked over 500 ms. */
  async function fetchedBrokers(topic: string, messages: number): Promise<string[]> {
    const fetch = ConsumerGroup.prototype.fetch;
    const asked = new Set<string>();
    let counting = false;
    const spy = jest.spyOn(ConsumerGroup.prototype, 'fetch').mockImplementation(function (
      this: ConsumerGroup,
      nodeId: string,
    ) {
      if (counting) asked.add(String(nodeId));
      return fetch.call(this, nodeId);
    });
    const got: number[] = [];
    // The message that created the topic (n = -1) comes first.
    const messagesBefore = 1;
    let sub: Subscription | undefined;
    try {
      sub = await bus.subscribe<{ n: number }>({
        groupId: `${topic}-group`,
        topics: [topic],
        start: 'earliest',
        batchHandler: (ms: readonly BusMessage<{ n: number }>[]) =>
          void got.push(...ms.map((m) => m.value.n)),
      });
      for (let n = 0; n < messages; n++) await bus.publish(topic, `key-${n}`, { n });
      await eventually(() => got.length >= messages + messagesBefore, 20_000, 10);
      counting = true;
      await new Promise((r) => setTimeout(r, 500));
      counting = false;
      expect([...got].sort((a, b) => a - b)).toEqual([-1, ...Array(messages).keys()]);
      return [...asked].sort();
    } finally {
      spy.mockRestore();
      await sub?.close();
    }
  }

  it("the leaders' loops only: a broker that leads none of the partitions gets no loop (kafkajs's slept and asked again)", async () => {
    expect(await fetchedBrokers(some, 12)).toEqual(leaders.get(some));
  }, 40_000);

  it('partitions led by every broker: a loop for each', async () => {
    expect(await fetchedBrokers(every, 12)).toEqual(leaders.get(every));
  }, 40_000);
});

describe('the brokers a consumer fetches from, without a cluster', () => {
  beforeAll(() => fetchOnlyFromServingBrokers());

  const group = (
    assigned: { topic: string; partitions: number[] }[],
    replicas: (topic: string) => Record<string, number[]>,
  ) =>
    Object.assign(Object.create(ConsumerGroup.prototype) as ConsumerGroup, {
      cluster: { getNodeIds: () => ['1', '2', '3'] },
      subscriptionState: { assigned: () => assigned },
      findReadReplicaForPartitions: replicas,
    });

  it('nothing assigned (a member beyond the partition count): one loop, not one per broker', () => {
    expect(group([], () => ({})).getNodeIds()).toEqual(['1']);
  });

  it('a topic whose metadata is not loaded yet: every broker, as kafkajs does (the next fetch asks again)', () => {
    const notLoaded = () => {
      throw new Error('Topic metadata not loaded');
    };
    expect(group([{ topic: 't', partitions: [0] }], notLoaded).getNodeIds()).toEqual(['1', '2', '3']);
  });

  it('partitions of several topics: each broker serving one, once, in the cluster order', () => {
    const replicas: Record<string, Record<string, number[]>> = { a: { '3': [0] }, b: { '3': [1], '1': [0] } };
    const served = group(
      [
        { topic: 'a', partitions: [0] },
        { topic: 'b', partitions: [0, 1] },
      ],
      (topic) => replicas[topic]!,
    );
    expect(served.getNodeIds()).toEqual(['1', '3']);
  });
});
