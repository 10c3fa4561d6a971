import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { Bus, BusModule, MemoryBus } from '@perp/bus';
import { priceEvent, type PriceEvent, TOPICS, topicPartitions } from '@perp/contracts';
import { MarketRegistry, SimulatedPriceWalk } from '@perp/domain';
import { loadAppConfig, RuntimeModule } from '@perp/runtime';
import { join } from 'node:path';
import { SimulatedPriceFeed } from './simulated-price-feed';

const DEPLOY_DIR = join(__dirname, '..', '..', '..', '..', 'deploy');
const INTERVAL = 1000;

/** The feed in a Nest context on the memory bus with the devnet chain; records every publish. */
async function start(env: Record<string, string>) {
  const config = loadAppConfig({ DEPLOY_DIR, CHAIN: 'devnet', ...env });
  @Module({
    imports: [
      RuntimeModule.forRoot(config),
      BusModule.forRoot(config, { topics: topicPartitions(), journal: false }),
    ],
    providers: [SimulatedPriceFeed],
  })
  class FeedModule {}
  const published: { topic: string; key: string; event: PriceEvent }[] = [];
  const publish = MemoryBus.prototype.publish;
  jest.spyOn(MemoryBus.prototype, 'publish').mockImplementation(async function (this: MemoryBus, ...args) {
    const [topic, key, value] = args;
    published.push({ topic, key, event: priceEvent.parse(value) });
    return publish.apply(this, args);
  });
  // Boots the context (onApplicationBootstrap included).
  const app = await NestFactory.createApplicationContext(FeedModule, { logger: false, abortOnError: false });
  return { app, bus: app.get(Bus), published, markets: app.get(MarketRegistry) };
}

/** Messages on the prices topic, summed over its partitions. */
async function pricesOnLog(bus: Bus): Promise<number> {
  const ends = await bus.endOffsets(TOPICS.prices.name);
  return ends.reduce((n, e) => n + Number(e.offset), 0);
}

/** The walk's price at `tick` for a devnet market, computed independently of the feed. */
function expected(markets: MarketRegistry, symbol: string, tick: number, seed = 1): string {
  const m = markets.find(symbol)!;
  return new SimulatedPriceWalk({
    seed,
    symbol,
    tickSize: m.tickSize,
    referencePrice: m.referencePrice!,
  }).advanceTo(tick);
}

describe('SimulatedPriceFeed', () => {
  let app: INestApplicationContext | undefined;

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'], now: 1_700_000_000_000 });
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('publishes one price.index per TRADING market at bootstrap and then every interval', async () => {
    const started = await start({ PRICE_SOURCE: 'simulated', PRICE_FEED_INTERVAL_MS: String(INTERVAL) });
    app = started.app;
    const { bus, published, markets } = started;
    const symbols = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];

    // Tick 0 at bootstrap: each market's reference price.
    expect(published.map((p) => [p.key, p.event.indexPrice])).toEqual([
      ['BTCUSDT', '65000.0'],
      ['ETHUSDT', '3500.00'],
      ['SOLUSDT', '150.000'],
    ]);

    await jest.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(published).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(1);
    expect(published).toHaveLength(6);
    await jest.advanceTimersByTimeAsync(2 * INTERVAL);
    expect(published).toHaveLength(12);
    expect(await pricesOnLog(bus)).toBe(12);

    published.forEach((p, i) => {
      const tick = Math.floor(i / 3);
      const symbol = symbols[i % 3];
      expect(p.topic).toBe(TOPICS.prices.name);
      expect(p.key).toBe(symbol);
      expect(p.event).toEqual({
        id: `simulated/${symbol}/${tick}`,
        v: 1,
        time: 1_700_000_000_000 + tick * INTERVAL,
        type: 'price.index',
        symbol,
        indexPrice: expected(markets, symbol, tick),
        source: 'simulated',
      });
    });
    // Pinned: the devnet BTCUSDT walk with seed 1 (libs/domain pins the same numbers).
    expect(published.filter((p) => p.key === 'BTCUSDT').map((p) => p.event.indexPrice)).toEqual([
      '65000.0',
      '64995.9',
      '65000.8',
      '64988.3',
    ]);

    // Stopped on destroy: nothing more, however long we wait.
    await app.close();
    app = undefined;
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(published).toHaveLength(12);
  });

  it('skips markets that are not TRADING; a resumed market rejoins its walk at the current tick', async () => {
    const started = await start({ PRICE_SOURCE: 'simulated', PRICE_FEED_SEED: '9' });
    app = started.app;
    const { published, markets } = started;
    markets.setStatus('ETHUSDT', 'HALT');
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(published.slice(3).map((p) => p.event.id)).toEqual(['simulated/BTCUSDT/1', 'simulated/SOLUSDT/1']);
    markets.setStatus('ETHUSDT', 'TRADING');
    await jest.advanceTimersByTimeAsync(2 * INTERVAL);
    const eth = published.filter((p) => p.key === 'ETHUSDT').map((p) => [p.event.id, p.event.indexPrice]);
    expect(eth).toEqual([0, 2, 3].map((t) => [`simulated/ETHUSDT/${t}`, expected(markets, 'ETHUSDT', t, 9)]));
  });

  it('publishes nothing when PRICE_SOURCE=admin (the default)', async () => {
    const started = await start({});
    app = started.app;
    expect(app.get(SimulatedPriceFeed).enabled).toBe(false);
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(started.published).toHaveLength(0);
    expect(await pricesOnLog(started.bus)).toBe(0);
  });
});
