import { startKafkaMock, type KafkaMock } from './kafka-mock';
import { Kafka, logLevel } from 'kafkajs';
import { trackKafkaClients } from './kafka-client-leaks';

describe('trackKafkaClients: what a spec file left connected', () => {
  let mock: KafkaMock;

  beforeAll(async () => {
    mock = await startKafkaMock({ brokers: 1 });
  });

  afterAll(async () => {
    await mock?.stop();
  });

  it('lists a client from connect() until its disconnect(), with where it was made', async () => {
    const tracker = trackKafkaClients();
    try {
      const kafka = new Kafka({ brokers: mock.brokers, logLevel: logLevel.NOTHING });
      const producer = kafka.producer();
      const admin = kafka.admin();
      kafka.consumer({ groupId: 'never-connected' });
      expect(tracker.open()).toEqual([]);
      await producer.connect();
      await admin.connect();
      expect(tracker.open()).toEqual([
        expect.stringMatching(/a kafkajs producer made[\s\S]*kafka-client-leaks\.spec\.ts/),
        expect.stringMatching(/a kafkajs admin made/),
      ]);
      await producer.disconnect();
      await admin.disconnect();
      expect(tracker.open()).toEqual([]);
    } finally {
      tracker.stop();
    }
  });

  it('lists one still connecting to a broker that is not there; one made after stop() is not tracked', async () => {
    const tracker = trackKafkaClients();
    const kafka = new Kafka({
      brokers: ['127.0.0.1:1'],
      logLevel: logLevel.NOTHING,
      retry: { retries: 1, initialRetryTime: 10 },
    });
    const admin = kafka.admin();
    const connecting = admin.connect().catch(() => undefined);
    expect(tracker.open()).toHaveLength(1);
    await connecting;
    await admin.disconnect();
    tracker.stop();
    const later = kafka.admin();
    await later.connect().catch(() => undefined);
    expect(tracker.open()).toEqual([]);
    await later.disconnect();
  });
});
