import { type INestApplicationContext, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Bus, BusModule, MemoryBus } from '@perp/bus';
import { CacheModule, HOT_STORE, type HotStore } from '@perp/cache';
import {
  INDEX_SOURCE_KEY,
  priceEvent,
  type PriceEvent,
  readIndexSourceStatus,
  TOPICS,
  topicPartitions,
} from '@perp/contracts';
import { SimulatedPriceWalk } from '@perp/domain';
import { loadAppConfig, RuntimeModule } from '@perp/runtime';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockAggregator, TestChain } from './__fixtures__/test-chain';
import { compositePriceId, IndexSourceFeed } from './index-source-feed';

const DEVNET = join(__dirname, '..', '..', '..', '..', 'deploy', 'chains', 'devnet', 'chain.json');
const T0 = 1_700_000_000_000;
/** Aggregators count seconds. */
const S = (ms: number) => BigInt(Math.floor(ms / 1000));

/** A deploy dir whose chain is devnet with the test EVM's RPC URL and index sources on two markets. */
function deployDir(rpcUrl: string, feedAddress: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'index-sources-'));
  const chain = JSON.parse(readFileSync(DEVNET, 'utf8')) as {
    rpcUrl?: string;
    markets: Record<string, unknown>[];
  };
  chain.rpcUrl = rpcUrl;
  chain.markets.find((m) => m.symbol === 'BTCUSDT')!.indexSources = {
    maxDeviationPercent: '5',
    failuresToOpen: 3,
    coolDownSeconds: 30,
    sources: [
      { kind: 'chainlink', address: feedAddress, maxAgeSeconds: 3600 },
      { kind: 'admin', maxAgeSeconds: 60 },
    ],
  };
  chain.markets.find((m) => m.symbol === 'SOLUSDT')!.indexSources = { sources: [{ kind: 'simulated' }] };
  mkdirSync(join(dir, 'chains', 'test'), { recursive: true });
  writeFileSync(join(dir, 'chains', 'test', 'chain.json'), JSON.stringify(chain));
  return dir;
}

/** The feed in a Nest context (memory bus and hot store); records every price published. */
async function start(dir: string, env: Record<string, string>) {
  // A poll interval that never elapses in the test: polls are driven by calling poll(now).
  const config = loadAppConfig({ DEPLOY_DIR: dir, CHAIN: 'test', PRICE_FEED_INTERVAL_MS: '3600000', ...env });
  @Module({
    imports: [
      RuntimeModule.forRoot(config),
      BusModule.forRoot(config, { topics: topicPartitions(), journal: false }),
      CacheModule.forRoot(config),
    ],
    providers: [IndexSourceFeed],
  })
  class FeedModule {}
  const published: PriceEvent[] = [];
  const publish = MemoryBus.prototype.publish;
  jest.spyOn(MemoryBus.prototype, 'publish').mockImplementation(async function (this: MemoryBus, ...args) {
    const event = priceEvent.parse(args[2]);
    if (event.type === 'price.index' && event.source !== 'admin') published.push(event);
    return publish.apply(this, args);
  });
  const app = await NestFactory.createApplicationContext(FeedModule, { logger: false, abortOnError: false });
  return {
    app,
    feed: app.get(IndexSourceFeed),
    bus: app.get(Bus),
    hot: app.get<HotStore>(HOT_STORE),
    published,
  };
}

describe('IndexSourceFeed', () => {
  let chain: TestChain;
  let aggregator: MockAggregator;
  let dir: string;
  let app: INestApplicationContext | undefined;

  beforeAll(async () => {
    chain = await TestChain.start(31337);
    aggregator = await chain.deployAggregator(8);
    dir = deployDir(await chain.serve(), aggregator.address);
  });

  afterAll(async () => {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    jest.restoreAllMocks();
  });

  it('publishes the composite of fresh sources, and nothing while a market has no price', async () => {
    await aggregator.setRound(1, 6500012345678n, S(T0 - 10_000));
    jest.spyOn(Date, 'now').mockReturnValue(T0);
    const info = jest.spyOn(Logger.prototype, 'log');
    const started = await start(dir, { PRICE_SOURCE: 'composite' });
    app = started.app;
    const { feed, bus, hot, published } = started;
    const description = `median(chainlink:${aggregator.address.toLowerCase()},admin)`;

    // Bootstrap poll: the on-chain round alone for BTCUSDT (no push yet), the walk for SOLUSDT,
    // nothing for ETHUSDT, which has no indexSources.
    const walk = new SimulatedPriceWalk({
      seed: 1,
      symbol: 'SOLUSDT',
      tickSize: '0.001',
      referencePrice: '150.000',
    });
    expect(published).toEqual([
      {
        id: compositePriceId('BTCUSDT', T0),
        v: 1,
        time: T0,
        type: 'price.index',
        symbol: 'BTCUSDT',
        indexPrice: '65000.12345678',
        source: description,
      },
      {
        id: compositePriceId('SOLUSDT', T0),
        v: 1,
        time: T0,
        type: 'price.index',
        symbol: 'SOLUSDT',
        indexPrice: walk.next(),
        source: 'median(simulated)',
      },
    ]);
    expect(await readIndexSourceStatus(hot, 'BTCUSDT')).toEqual({
      status: 'AVAILABLE',
      price: '65000.12345678',
      symbol: 'BTCUSDT',
      time: T0,
      description,
      sources: [
        {
          name: `chainlink:${aggregator.address.toLowerCase()}`,
          kind: 'chainlink',
          state: 'USED',
          price: '65000.12345678',
          time: T0 - 10_000,
          circuit: 'CLOSED',
          failures: 0,
        },
        { name: 'admin', kind: 'admin', state: 'NO_DATA', circuit: 'CLOSED', failures: 0 },
      ],
    });
    expect(await readIndexSourceStatus(hot, 'ETHUSDT')).toBeUndefined();
    expect(info).toHaveBeenCalledWith('ETHUSDT has no indexSources: no composite index for it');

    // An operator push within 5 %: the median of the two sources is their mean.
    await pushAdmin(bus, feed, 'BTCUSDT', '64000', T0 + 500);
    let now = T0 + 1000;
    await feed.poll(now);
    expect(lastFor(published, 'BTCUSDT')).toMatchObject({
      id: `index/BTCUSDT/${now}`,
      indexPrice: '64500.06172839',
    });

    // The aggregator reverts: two failures keep its last round, the third opens its circuit and the
    // push alone is the index.
    await aggregator.setFailing(true);
    for (let i = 0; i < 3; i++) await feed.poll((now += 1000));
    expect(lastFor(published, 'BTCUSDT')).toMatchObject({ time: now, indexPrice: '64000' });
    const open = await readIndexSourceStatus(hot, 'BTCUSDT');
    expect(open?.sources[0]).toMatchObject({
      state: 'CIRCUIT_OPEN',
      circuit: 'OPEN',
      failures: 3,
      lastError: 'call reverted: aggregator down',
    });

    // The push goes stale: no fresh source, so nothing is published, and that is logged once.
    info.mockClear();
    const before = published.length;
    now = T0 + 500 + 60_001;
    await feed.poll(now);
    await feed.poll(now + 1000);
    expect(published.slice(before).map((e) => e.symbol)).toEqual(['SOLUSDT', 'SOLUSDT']);
    expect(await readIndexSourceStatus(hot, 'BTCUSDT')).toMatchObject({
      status: 'UNAVAILABLE',
      reason: 'NO_FRESH_SOURCE',
      time: now + 1000,
    });
    const unavailable = info.mock.calls.filter(([m]) =>
      String(m).startsWith('BTCUSDT index price unavailable'),
    );
    expect(unavailable).toEqual([
      [
        `BTCUSDT index price unavailable (NO_FRESH_SOURCE): chainlink:${aggregator.address.toLowerCase()} CIRCUIT_OPEN, admin STALE; publishing nothing`,
      ],
    ]);

    // The aggregator is back with a new round: after the cool-down the trial read closes the circuit.
    await aggregator.setFailing(false);
    now += 30_000;
    await aggregator.setRound(2, 6510000000000n, S(now));
    await feed.poll(now);
    expect(lastFor(published, 'BTCUSDT')).toMatchObject({ time: now, indexPrice: '65100' });
    expect(info).toHaveBeenCalledWith('BTCUSDT index price available again');
    expect(await hot.get(INDEX_SOURCE_KEY('BTCUSDT'))).toContain('"status":"AVAILABLE"');
  });

  it('two sources disagreeing: a push 11 % off the on-chain round leaves both out, nothing published', async () => {
    await aggregator.setFailing(false);
    await aggregator.setRound(3, 6500000000000n, S(T0));
    jest.spyOn(Date, 'now').mockReturnValue(T0);
    const started = await start(dir, { PRICE_SOURCE: 'composite' });
    app = started.app;
    const { feed, bus, hot, published } = started;
    await pushAdmin(bus, feed, 'BTCUSDT', '72000', T0 + 100);
    await feed.poll(T0 + 1000);
    expect(published.filter((e) => e.symbol === 'BTCUSDT').map((e) => e.time)).toEqual([T0]);
    const status = await readIndexSourceStatus(hot, 'BTCUSDT');
    expect(status).toMatchObject({ status: 'UNAVAILABLE', reason: 'SOURCES_DISAGREE' });
    expect(status?.sources.map((s) => s.state)).toEqual(['DEVIATION', 'DEVIATION']);
  });

  it('does nothing unless PRICE_SOURCE=composite', async () => {
    const started = await start(dir, { PRICE_SOURCE: 'admin' });
    app = started.app;
    expect(started.feed.enabled).toBe(false);
    expect(started.published).toEqual([]);
    expect(await readIndexSourceStatus(started.hot, 'BTCUSDT')).toBeUndefined();
  });
});

/** Publishes an operator push as the gateway does and waits until the feed has taken it. */
async function pushAdmin(bus: Bus, feed: IndexSourceFeed, symbol: string, indexPrice: string, time: number) {
  const event: PriceEvent = {
    id: `admin/${time}`,
    v: 1,
    time,
    type: 'price.index',
    symbol,
    indexPrice,
    source: 'admin',
  };
  await bus.publish(TOPICS.prices.name, symbol, event);
  while (feed.pushes.get(symbol)?.time !== time) await new Promise((r) => setImmediate(r));
}

const lastFor = (events: PriceEvent[], symbol: string) => events.filter((e) => e.symbol === symbol).at(-1);
