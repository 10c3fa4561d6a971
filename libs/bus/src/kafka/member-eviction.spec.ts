import { type ChildProcess, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { type KafkaMock, startKafkaMock, failOnOpenKafkaClients } from '@perp/testing';
import { type Cluster, PartitionAssigners } from 'kafkajs';
import type { BusLogger, Subscription } from '../bus';
import { silentLogger } from '../logger';
import { KafkaBus } from './kafka-bus';
import { createKafka } from './kafka-client';
import { leaveGroupFor, RedisPresence } from './member-liveness';
import { STICKY_ASSIGNER_NAME } from './sticky-assigner';

failOnOpenKafkaClients();

// A group member in a process of its own, joined with the group's assignor and then frozen or
// killed: the peer a survivor must notice. It prints its member id and assignment on each join.
const DOOMED_MEMBER = `
const { Kafka, AssignerProtocol, logLevel } = require('kafkajs');
const Redis = require('ioredis');
const [brokers, groupId, topic, name, redisUrl, owner] = process.argv.slice(1);
// Its process's presence: a named connection, closed by the kernel when the process is killed.
new Redis(redisUrl, { connectionName: owner });
const kafka = new Kafka({ brokers: brokers.split(','), clientId: 'doomed', logLevel: logLevel.NOTHING });
const assigner = () => ({
  name, version: 0,
  async assign() { throw new Error('the test keeps the leader elsewhere'); },
  protocol: ({ topics }) => ({ name, metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.from('{}') }) }),
});
const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 250, rebalanceTimeout: 6000, partitionAssigners: [assigner] });
consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
  console.log(JSON.stringify({ memberId: payload.memberId, assignment: payload.memberAssignment })));
(async () => {
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async () => undefined });
})();
`;

describe('member liveness on the Kafka mock: a dead member is evicted before its session times out', () => {
  let mock: KafkaMock;

  beforeAll(async () => {
    mock = await startKafkaMock({ brokers: 1 });
  });

  afterAll(async () => {
    await mock?.stop();
  });

  it('a survivor evicts the member of a killed process and takes its partitions', async () => {
    const suffix = Date.now().toString(36);
    const topic = `evict-${suffix}`;
    const groupId = `evict-group-${suffix}`;
    const prefix = `perp:evict-${suffix}:`;
    const presence = await RedisPresence.connect(redisUrl(), { prefix, settleMs: 0 });
    const doomedOwner = `${prefix}bus:doomed`;
    const redis = new Redis(redisUrl());
    const lines: string[] = [];
    const logger: BusLogger = {
      log: (l) => lines.push(l),
      warn: (l) => lines.push(l),
      error: (l) => lines.push(l),
    };
    const bus = new KafkaBus({
      brokers: mock.brokers,
      clientId: 'survivor',
      topics: { [topic]: 4 },
      logger,
      consumer: {
        // Long enough that only an eviction can move the partitions while the test runs: the
        // mock's rebalance also waits a session less one second for members to rejoin.
        sessionTimeoutMs: 6_000,
        heartbeatIntervalMs: 250,
        rebalanceTimeoutMs: 6_000,
        maxWaitTimeMs: 50,
        leaderSyncDelayMs: 200,
        liveness: { presence, periodMs: 100 },
      },
    });
    let doomed: ChildProcess | undefined;
    let sub: Subscription | undefined;
    try {
      await bus.connect();
      sub = await bus.subscribe({ groupId, topics: [topic], handler: async () => undefined });
      expect(sub.assignment()).toHaveLength(4);
      doomed = spawn(
        process.execPath,
        [
          '-e',
          DOOMED_MEMBER,
          mock.brokers.join(','),
          groupId,
          topic,
          STICKY_ASSIGNER_NAME,
          redisUrl(),
          doomedOwner,
        ],
        {
          cwd: process.cwd(),
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      // The doomed member joins (the survivor, already leader, gives it a share) and is listed
      // under its process's connection, then dies without leaving.
      const joinedAs = await new Promise<string>((resolve, reject) => {
        doomed!.stdout!.on('data', (chunk: Buffer) => {
          for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
            const { memberId, assignment } = JSON.parse(line) as {
              memberId: string;
              assignment: Record<string, number[]>;
            };
            if ((assignment[topic] ?? []).length > 0) resolve(memberId);
          }
        });
        doomed!.once('exit', (code) => reject(new Error(`doomed member exited (${code})`)));
      });
      await until(() => sub!.assignment().length === 2);
      // Listed as MemberLiveness lists a member, under its process's connection.
      await redis.hset(`${prefix}kafka-members:${groupId}`, joinedAs, doomedOwner);
      await until(async () => (await presence.liveOwners(Date.now()))?.has(doomedOwner) === true);
      doomed.kill('SIGKILL');
      await until(() => sub!.assignment().length === 4);
      // Evicted while the coordinator still knew it: not the session timeout.
      expect(lines).toEqual(
        expect.arrayContaining([expect.stringMatching(`member ${joinedAs}'s process is gone: evicted`)]),
      );
      expect(await redis.hgetall(`${prefix}kafka-members:${groupId}`)).not.toHaveProperty(joinedAs);
    } finally {
      doomed?.kill('SIGKILL');
      await sub?.close();
      await bus.close();
      await presence.close();
      await redis.del(`${prefix}kafka-members:${groupId}`);
      await redis.quit();
    }
  }, 60_000);

  it('evicting a member the coordinator does not know is a no-op', async () => {
    const suffix = Date.now().toString(36);
    const groupId = `evict-unknown-${suffix}`;
    const kafka = createKafka({ brokers: mock.brokers, clientId: 'evict-unknown', logger: silentLogger });
    // The cluster kafkajs hands to assignors, as the subscription captures it.
    let cluster: Cluster | undefined;
    const consumer = kafka.consumer({
      groupId,
      partitionAssigners: [
        (config) => {
          cluster = config.cluster;
          return PartitionAssigners.roundRobin(config);
        },
      ],
    });
    try {
      const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
      await consumer.connect();
      await consumer.subscribe({ topic: `evict-unknown-${suffix}`, fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await joined;
      await expect(leaveGroupFor(cluster!, groupId, 'no-such-member')).resolves.toBe('gone');
    } finally {
      await consumer.disconnect();
    }
  }, 30_000);
});

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

function redisUrl(): string {
  return process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';
}
