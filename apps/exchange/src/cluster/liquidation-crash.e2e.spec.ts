import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountProjectionOf, HOT_KEYS, TOPICS } from '@perp/contracts';
import { Account, Money } from '@perp/domain';
import { Kafka, logLevel } from 'kafkajs';
import { failOnOpenKafkaClients, type HttpResponse, signed } from '@perp/testing';
import { editedDevnet, noInterest, TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader, type Trader } from '../trading/trading.harness';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster-environment.harness';
import { untilEveryRiskPartitionAnswers } from './trading-script.harness';

// The spec reads and writes the mock's topics with kafkajs in this process.
failOnOpenKafkaClients();

const BTC = 'BTCUSDT';
/** Its own Redis database among the multi-process suites' (see cluster-environment.harness.ts). */
const REDIS_DB = Number(process.env.LIQUIDATION_CRASH_REDIS_DB ?? 4);
/**
 * The longs' deposits. Each buys 0.1 at 50000 (taker fee 2.5, 20x): wallet w = deposit - 2.5,
 * bankruptcy 50000 - 10 w, liquidated at a mark M <= (5000 - w) / 0.0996 (maintenance 0.4 %).
 * 270: bankrupt 47325, liquidated at 47515; 290: 47125 / 47314; 310: 46925 / 47113; 330: 46725 / 46912.
 */
const LONG_DEPOSITS = ['270', '290', '310', '330'];

interface ForceOrderRow {
  orderId: string;
  autoCloseType?: string;
  clientOrderId: string;
  executedQty: string;
  origQty: string;
  side: string;
}

// The crash test: a mark move liquidates four leveraged longs at once. Two liquidations
// fill against resting bids, two find none and are closed by ADL against the shorts. The risk
// shard and the engine shard are killed (SIGKILL) while that cascade runs, and restart from their
// snapshots and the logs. Every liquidation and every ADL close happens exactly once, and the
// exchange stays solvent to the last unit.
describe('liquidation cascade across kill -9 of a risk shard and the engine shard (real processes, Kafka mock)', () => {
  let cluster: ClusterEnvironment | undefined;
  // Without interest a mark pushed with no impact-sized book around it is the index.
  const deployDir = editedDevnet(mkdtempSync(join(tmpdir(), 'perp-liquidation-crash-')), noInterest);

  afterAll(async () => {
    await cluster?.close();
    rmSync(deployDir, { recursive: true, force: true });
  }, 60_000);

  it('liquidates and deleverages each position once; solvency difference 0', async () => {
    cluster = await openClusterEnvironment('liquidation', REDIS_DB, {
      RISK_SNAPSHOT_EVERY: '3',
      ENGINE_SNAPSHOT_EVERY: '3',
      RISK_SNAPSHOT_MIN_INTERVAL_MS: '0',
      ENGINE_SNAPSHOT_MIN_INTERVAL_MS: '0',
      DEPLOY_DIR: deployDir,
    });
    const start = (app: string) => cluster!.start(app);
    const [gateway, engine, r0, r1] = await cluster.startAll([
      'gateway',
      'matching-engine',
      'risk',
      'risk',
      'market-data',
    ]);
    const risks = [r0, r1];
    const url = gateway.url;

    const push = (indexPrice: string) =>
      adminRequest(url, TEST_ADMIN_TOKEN, `/prices/${BTC}`, 'POST', { indexPrice });
    const order = async (t: Trader, params: Record<string, string>) => {
      const r = await signed(url, '/fapi/v1/order', t.key, {
        method: 'POST',
        params: { symbol: BTC, ...params },
      });
      expect([r.status, r.text]).toEqual([200, expect.any(String)]);
      return r.body as { status: string };
    };
    const get = async <T>(t: Trader, path: string, params: Record<string, string> = {}) => {
      const r = await signed(url, path, t.key, { method: 'GET', params });
      expect([r.status, r.text]).toEqual([200, expect.any(String)]);
      return r.body as T;
    };
    const position = async (t: Trader) =>
      (await get<{ positionAmt: string }[]>(t, '/fapi/v2/positionRisk', { symbol: BTC }))[0]?.positionAmt ??
      '0';
    /** The hot store's size of `t`'s position (Redis, not the gateway: polled without a rate limit). */
    const hotSize = async (t: Trader) => {
      const p = accountProjectionOf(
        await cluster!.redis.hgetall(`perp:devnet:${HOT_KEYS.account(t.address)}`),
      );
      const size = p ? Account.fromState(p.state).position(BTC)?.size : undefined;
      return size?.toFixed() ?? '0';
    };
    const lots = (qty: string) => Math.round(Number(qty) * 1000);

    // s1, s2: the shorts (the ADL counterparties); bidder: the resting liquidity; longs: the liquidated.
    const [s1, s2, bidder] = [await newTrader(url), await newTrader(url), await newTrader(url)];
    const longs: Trader[] = [];
    for (const _ of LONG_DEPOSITS) longs.push(await newTrader(url));
    for (const t of [s1, s2, bidder]) await deposit(url, TEST_ADMIN_TOKEN, t.address, '100000');
    for (const [i, t] of longs.entries()) await deposit(url, TEST_ADMIN_TOKEN, t.address, LONG_DEPOSITS[i]!);
    const everyone = [s1, s2, bidder, ...longs];
    await untilEveryRiskPartitionAnswers(url, everyone);
    expect((await push('50000')).status).toBe(200);

    // Each short sells 0.2 at 50000 to two longs.
    for (const [short, buyers] of [
      [s1, longs.slice(0, 2)],
      [s2, longs.slice(2)],
    ] as const) {
      await order(short, {
        side: 'SELL',
        type: 'LIMIT',
        price: '50000',
        quantity: '0.2',
        timeInForce: 'GTC',
      });
      for (const b of buyers)
        expect((await order(b, { side: 'BUY', type: 'MARKET', quantity: '0.1' })).status).toBe('FILLED');
    }
    // Bids for two of the four liquidations, above every bankruptcy price (thinner than the impact
    // notional: the mark stays the index).
    for (const price of ['47400', '47350'])
      await order(bidder, { side: 'BUY', type: 'LIMIT', price, quantity: '0.1', timeInForce: 'GTC' });
    for (const t of longs)
      expect(
        await eventually(
          () => position(t),
          (v) => v === '0.100',
        ),
      ).toBe('0.100');

    // The cascade: one mark under every long's threshold, and three crashes in it.
    // 1. A risk shard dies as the mark goes out: its accounts' liquidations wait for its restart
    //    (from its snapshot and the log), while the other shard's go ahead. The push may answer
    //    503: published, not yet applied.
    const pushed = push('46800');
    await risks[0]!.stop('SIGKILL');
    // 2. The engine shard dies once a liquidation has landed (or after 20 s, when the other shard
    //    holds none of the longs): the rest are in flight or not sent yet. The dead risk shard
    //    restarts while the engine is down, so its liquidation orders wait on the log.
    await eventually(
      () => Promise.all(longs.map(hotSize)),
      (v) => v.includes('0'),
      20_000,
    );
    await engine.stop('SIGKILL');
    risks[0] = await start('risk');
    await start('matching-engine');
    expect([200, 503]).toContain((await pushed).status);
    // 3. The other risk shard dies as the restarted engine works through what waited for it.
    await risks[1]!.stop('SIGKILL');
    risks[1] = await start('risk');
    await untilEveryRiskPartitionAnswers(url, everyone);

    for (const t of longs)
      expect(
        await eventually(
          () => hotSize(t),
          (v) => v === '0',
          60_000,
        ),
      ).toBe('0');
    for (const t of longs) expect(await position(t)).toBe('0.000');
    // The bids took 0.2 and ADL the other 0.2: the bidder is long 0.2, the shorts short 0.2 together.
    expect(await position(bidder)).toBe('0.200');
    expect(lots(await position(s1)) + lots(await position(s2))).toBe(-200);

    // Each long: one liquidation (the whole position, bracket 1), filled; its order once in allOrders.
    const forceOrders = async (t: Trader) => {
      const rows = await get<ForceOrderRow[]>(t, '/fapi/v1/forceOrders', { symbol: BTC });
      return rows.map((r) => ({ ...r, adl: r.clientOrderId.startsWith('adl_') }));
    };
    for (const t of longs) {
      const rows = await eventually(
        () => forceOrders(t),
        (v) => v.length > 0,
        30_000,
      );
      expect(rows.map((r) => [r.adl, r.side, r.origQty, r.executedQty])).toEqual([
        [false, 'SELL', '0.100', '0.100'],
      ]);
      const liquidationOrders = (
        await get<{ orderId: string; type: string }[]>(t, '/fapi/v1/allOrders', { symbol: BTC })
      ).filter((o) => o.type === 'LIQUIDATION');
      expect(liquidationOrders.map((o) => o.orderId)).toEqual([rows[0]!.orderId]);
    }
    // The engine's log, read whole, each event once by id (a restarted engine may publish one
    // again with its id): one liquidation.done per long, the ids of its force orders; the book
    // filled 0.2 and ADL 0.2; the trades of both kinds, each once.
    const log = new Map<string, EngineLogEvent>();
    for (const e of await readTopic(cluster.kafka.brokers, TOPICS.engineEvents.name)) log.set(e.id, e);
    const done = [...log.values()].filter((e) => e.type === 'liquidation.done');
    expect(done.map((e) => e.user).sort()).toEqual(longs.map((t) => t.address).sort());
    const liquidationIds = [];
    for (const t of longs) liquidationIds.push((await forceOrders(t))[0]!.orderId);
    expect(done.map((e) => e.liquidationId).sort()).toEqual(liquidationIds.sort());
    expect(done.reduce((n, e) => n + lots(e.filledQty!), 0)).toBe(200);
    expect(done.reduce((n, e) => n + lots(e.adlQty!), 0)).toBe(200);
    const forced = [...log.values()].filter((e) => e.type === 'trade' && e.kind !== undefined);
    expect(new Set(forced.map((e) => e.tradeId)).size).toBe(forced.length);
    const forcedLots = (kind: string) =>
      forced.filter((e) => e.kind === kind).reduce((n, e) => n + lots(e.qty!), 0);
    expect([forcedLots('LIQUIDATION'), forcedLots('ADL')]).toEqual([200, 200]);

    // The shorts: ADL closes (buys) adding up to 0.2, each once; the bidder none.
    const adlRows = [...(await forceOrders(s1)), ...(await forceOrders(s2))];
    expect(adlRows.every((r) => r.adl && r.side === 'BUY')).toBe(true);
    expect(adlRows.reduce((n, r) => n + lots(r.executedQty), 0)).toBe(200);
    expect(new Set(adlRows.map((r) => r.orderId)).size).toBe(adlRows.length);
    expect(await forceOrders(bidder)).toEqual([]);
    const events = (await (await fetch(`${url}/api/v1/adl/${BTC}/events`)).json()) as { quantity: string }[];
    expect(events.reduce((n, e) => n + lots(e.quantity), 0)).toBe(200);

    // Trades: no id twice for a user; each id on two users (maker and taker, or ADL's two sides);
    // bought = sold.
    const seen = new Map<string, number>();
    let bought = 0;
    let sold = 0;
    for (const t of everyone) {
      const trades = await get<{ id: number | string; side: string; qty: string }[]>(
        t,
        '/fapi/v1/userTrades',
        {
          symbol: BTC,
        },
      );
      const ids = trades.map((x) => String(x.id));
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
      for (const x of trades)
        if (x.side === 'BUY') bought += lots(x.qty);
        else sold += lots(x.qty);
    }
    expect([...seen.values()].every((n) => n === 2)).toBe(true);
    expect(bought).toBe(sold);

    // Open interest: long = short = 0.2.
    const oi = (await (await fetch(`${url}/api/v1/open-interest/${BTC}`)).json()) as Record<string, string>;
    expect([oi.long_oi, oi.short_oi]).toEqual(['0.200', '0.200']);

    // No wallet below zero: the fund or ADL covered every loss.
    for (const t of everyone) {
      const balances = await get<{ asset: string; balance: string }[]>(t, '/fapi/v2/balance');
      const usdt = balances.find((b) => b.asset === 'USDT')!.balance;
      expect(new Money(usdt).gte(0)).toBe(true);
    }

    // Solvency, once every partition has settled the symbol: exactly 0.
    const solvency: HttpResponse = await eventually(
      () => adminRequest(url, TEST_ADMIN_TOKEN, '/solvency', 'GET'),
      (r) => r.status === 200 && r.body.unsettled_symbols?.length === 0,
      30_000,
    );
    expect([solvency.status, solvency.body.unsettled_symbols, solvency.body.difference]).toEqual([
      200,
      [],
      '0',
    ]);
    expect(new Money(solvency.body.insurance_fund as string).gte(0)).toBe(true);
  }, 240_000);
});

interface EngineLogEvent {
  id: string;
  type: string;
  user?: string;
  liquidationId?: string;
  filledQty?: string;
  adlQty?: string;
  tradeId?: string;
  kind?: string;
  qty?: string;
}

/** Every message of `topic` up to its end now, from a fresh consumer group. */
async function readTopic(brokers: string[], topic: string): Promise<EngineLogEvent[]> {
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)]));
  await admin.disconnect();
  const read = new Map<number, number>();
  const complete = () => [...ends].every(([p, high]) => (read.get(p) ?? 0) >= high);
  const out: EngineLogEvent[] = [];
  const consumer = kafka.consumer({ groupId: `liquidation-crash-reader-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    if (complete()) resolve();
    consumer
      .run({
        eachMessage: async ({ partition, message }) => {
          out.push(JSON.parse(message.value!.toString()) as EngineLogEvent);
          read.set(partition, Number(message.offset) + 1);
          if (complete()) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return out;
}
