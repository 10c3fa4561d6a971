// The file, not @perp/testing's index: that one loads every app (the in-process exchange).
import { type KafkaMock, startKafkaMock } from '@perp/testing';
import type { BusLogger } from '../bus';
import { silentLogger } from '../logger';
import { busConformance } from '../testing/bus-conformance';
import { KafkaBus, type KafkaConsumerTuning } from './kafka-bus';

const logger: BusLogger = process.env.BUS_DEBUG
  ? { log: console.log, warn: console.warn, error: console.error, debug: console.debug }
  : silentLogger;

/** The mock's group coordinator waits session timeout - 1 s for members to rejoin: keep it short there. */
const MOCK_TUNING: KafkaConsumerTuning = {
  sessionTimeoutMs: 2_500,
  heartbeatIntervalMs: 250,
  rebalanceTimeoutMs: 3_000,
  maxWaitTimeMs: 50,
};
/** A real broker refuses sessions under group.min.session.timeout.ms (6 s by default). */
const BROKER_TUNING: KafkaConsumerTuning = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 6_000,
  maxWaitTimeMs: 100,
};

const targets: { name: string; brokers?: string[] }[] = [{ name: 'the librdkafka mock cluster (kcat)' }];
if (process.env.KAFKA_BROKERS) {
  targets.push({
    name: `the real broker ${process.env.KAFKA_BROKERS}`,
    brokers: process.env.KAFKA_BROKERS.split(','),
  });
}

describe.each(targets)('KafkaBus conformance on $name', ({ name, brokers: realBrokers }) => {
  let mock: KafkaMock | undefined;
  let brokers: string[];

  beforeAll(async () => {
    if (realBrokers) brokers = realBrokers;
    else brokers = (mock = await startKafkaMock()).brokers;
    console.log(`KafkaBus conformance runs on ${name} at ${brokers.join(',')}`);
  });

  afterAll(async () => {
    await mock?.stop();
  });

  busConformance({
    open: async (topics, replyTopic) => {
      const bus = new KafkaBus({
        brokers,
        clientId: 'bus-conformance',
        topics,
        replyTopic,
        logger,
        retry: { initialMs: 20, maxMs: 200 },
        consumer: realBrokers ? BROKER_TUNING : MOCK_TUNING,
      });
      await bus.connect();
      return bus;
    },
    testTimeoutMs: 40_000,
    settleMs: 25_000,
  });
});
