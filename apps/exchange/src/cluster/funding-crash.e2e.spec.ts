import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOPICS, userIdForAddress } from '@perp/contracts';
import { Kafka, logLevel } from 'kafkajs';
import { IncomeRepository, openDataSource } from '@perp/persistence';
import { failOnOpenKafkaClients, json, type RunningApp } from '@perp/testing';
import type { DataSource } from 'typeorm';
import { editedDevnet, TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster-environment.harness';
import {
  fund,
  runStep,
  scriptTraders,
  type ScriptTrader,
  untilEveryRiskPartitionAnswers,
} from './trading-script.harness';

// The spec reads and writes the mock's topics with kafkajs in this process.
failOnOpenKafkaClients();

const BTC = 'BTCUSDT';
const MIN = 60_000;
// The funding time the test passes (the pushes carry their own times).
const T = Math.floor(Date.now() / MIN) * MIN + 10 * MIN;

// Funding's exactly-once claim with real processes over the Kafka mock: the funding service and a
// risk shard are killed around a funding time and restarted, then the round is published a second
// time (what a funding service killed between its publish and its snapshot does); every position
// is still paid exactly once, with the hand-computed amount.
describe('funding across kill -9 of the funding service and a risk shard (real processes, Kafka mock)', () => {
  let cluster: ClusterEnvironment | undefined;
  let deployDir: string;
  let ds: DataSource | undefined;

  afterAll(async () => {
    await ds?.destroy();
    await cluster?.close();
    rmSync(deployDir, { recursive: true, force: true });
  });

  it('pays every position once', async () => {
    deployDir = editedDevnet(mkdtempSync(join(tmpdir(), 'perp-funding-crash-')), (m) => {
      if (m.symbol === BTC) m.fundingIntervalMinutes = 1;
    });
    // Redis database 8: this suite's own (see cluster-environment.harness.ts for the others).
    cluster = await openClusterEnvironment('funding', 8, {
      DEPLOY_DIR: deployDir,
      RISK_SNAPSHOT_EVERY: '3',
      RISK_SNAPSHOT_MIN_INTERVAL_MS: '0',
    });
    const [gateway, , r0, r1, , funding] = await cluster.startAll([
      'gateway',
      'matching-engine',
      'risk',
      'risk',
      'market-data',
      'funding',
    ]);
    const risks: RunningApp[] = [r0, r1];
    const url = gateway.url;
    const traders = await scriptTraders(url);
    await fund(url, TEST_ADMIN_TOKEN, traders);
    await untilEveryRiskPartitionAnswers(url, traders);
    ds = await openDataSource(cluster.env.DATABASE_URL!, { poolSize: 2 });

    const index = async (time: number) => {
      const r = await json(
        `${url}/admin/v1/prices/${BTC}`,
        'POST',
        { indexPrice: '50000', time },
        TEST_ADMIN_TOKEN,
      );
      expect([r.status, r.text]).toEqual([200, expect.any(String)]);
      return (r.body as { markPrice: string }).markPrice;
    };
    const order = async (user: number, params: Record<string, string>) =>
      expect((await runStep(url, TEST_ADMIN_TOKEN, traders, { kind: 'order', user, params })).status).toBe(
        200,
      );

    await index(T - 59_000);
    // 0 and 2 sell, 1 and 3 buy: longs 0.1 and 0.2 against shorts of the same sizes.
    for (const [maker, taker, quantity] of [
      [0, 1, '0.1'],
      [2, 3, '0.2'],
    ] as const) {
      await order(maker, {
        symbol: BTC,
        side: 'SELL',
        type: 'LIMIT',
        price: '50000',
        quantity,
        timeInForce: 'GTC',
      });
      await order(taker, { symbol: BTC, side: 'BUY', type: 'MARKET', quantity });
    }
    // No premium (an empty book), last price 50000: mark = price 1 = 50000 × (1 + 0.00000021 × 30 / 60).
    expect(await index(T - 30_000)).toBe('50000.00525');

    // Around the funding time: the funding service and a risk shard die; the tick past T is applied
    // without them, then both restart (the risk shard from its snapshot and the log).
    await funding.stop('SIGKILL');
    await risks[0]!.stop('SIGKILL');
    await index(T + 1_000);
    [risks[0]] = await cluster.startAll(['risk', 'funding']);
    await untilEveryRiskPartitionAnswers(url, traders);
    const fees = await settledFees(ds, traders, 4);

    // A funding service killed between publishing a round and storing its snapshot publishes the
    // round again after its restart: the same event, once more on the funding log.
    const kafka = new Kafka({ brokers: cluster.kafka.brokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const again = {
      id: `funding/${BTC}/${T}`,
      v: 1,
      time: T,
      type: 'funding.settle',
      symbol: BTC,
      fundingRate: '0.00000021',
      markPrice: '50000.00525',
      fundingTime: T,
    };
    await producer.send({
      topic: TOPICS.funding.name,
      messages: [{ key: BTC, value: JSON.stringify(again) }],
    });
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    const published = (await admin.fetchTopicOffsets(TOPICS.funding.name)).reduce(
      (n, x) => n + Number(x.high),
      0,
    );
    expect(published).toBe(2);
    // Once the risk router has copied it (committed past it), every partition has it before a probe.
    const copied = async () =>
      (await admin.fetchOffsets({ groupId: 'risk-router', topics: [TOPICS.funding.name] }))
        .flatMap((t) => t.partitions)
        .reduce((n, x) => n + Math.max(0, Number(x.offset)), 0);
    const deadline = Date.now() + 60_000;
    while ((await copied()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await copied()).toBe(2);
    await admin.disconnect();
    await untilEveryRiskPartitionAnswers(url, traders);

    // Rate 0.00000021 at mark 50000.00525, rounded toward −∞ at 8 decimals: longs pay a little more.
    const id = `funding/${BTC}/${T}`;
    const expected = [
      [id, '0.00105'],
      [id, '-0.00105001'],
      [id, '0.0021'],
      [id, '-0.00210001'],
    ];
    expect(fees).toEqual(expected);

    expect(await settledFees(ds, traders, 4)).toEqual(expected);
    const rates: unknown[] = await ds.query(
      `SELECT funding_rate::text AS r FROM funding_rates WHERE symbol = $1`,
      [BTC],
    );
    expect(rates).toEqual([{ r: expect.stringMatching(/^0\.00000021/) }]);
  }, 300_000);
});

/** Each trader's FUNDING_FEE rows as [tranId, income], once `count` rows exist in all (or 60 s passed). */
async function settledFees(ds: DataSource, traders: ScriptTrader[], count: number): Promise<string[][]> {
  const income = new IncomeRepository(ds.manager);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const rows = [];
    for (const t of traders)
      for (const r of await income.listByUser(userIdForAddress(t.address), { incomeType: 'FUNDING_FEE' }))
        rows.push([r.tradeId, String(Number(r.income))]);
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((r) => setTimeout(r, 250));
  }
}
