import { Logger } from '@nestjs/common';
import { MemoryBus } from '@perp/bus';
import { TOPICS, topicPartitions } from '@perp/contracts';
import { MarketRegistry, parseMarket } from '@perp/domain';
import { Readiness } from '@perp/runtime';
import { MarketsProjection } from './markets-projection';

const AVAX = parseMarket({
  symbol: 'AVAXUSDT',
  baseAsset: 'AVAX',
  quoteAsset: 'USDT',
  tickSize: '0.01',
  lotSize: '0.1',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '1000000',
  maxLeverage: 20,
  defaultLeverage: 10,
  maxLongOi: '100000',
  maxShortOi: '100000',
  rank: 9,
  sortOrder: 9,
  maintenanceBrackets: [{ notionalCap: '50000', maintMarginRatio: '0.01', maxLeverage: 20 }],
});

function listing(time: number) {
  return {
    id: `listing-${time}`,
    v: 1,
    time,
    type: 'market.state',
    symbol: AVAX.symbol,
    market: AVAX as unknown as Record<string, unknown>,
    actor: 'ops',
    action: 'add',
  };
}

describe('MarketsProjection', () => {
  let bus: MemoryBus;
  let projection: MarketsProjection | undefined;

  beforeEach(async () => {
    bus = new MemoryBus({ topics: topicPartitions() });
    await bus.connect();
  });
  afterEach(async () => {
    await projection?.onModuleDestroy();
    projection = undefined;
    await bus.close();
  });

  it('is ready once every market change published before boot is applied, and ready() says so', async () => {
    await bus.publish(TOPICS.markets.name, AVAX.symbol, listing(1));
    const registry = new MarketRegistry([]);
    const readiness = new Readiness();
    projection = new MarketsProjection(bus, registry, readiness);
    projection.onModuleInit();
    const waiting = projection.ready();
    await projection.onApplicationBootstrap();
    await waiting;
    expect(projection.isReady).toBe(true);
    expect(registry.find(AVAX.symbol)?.symbol).toBe(AVAX.symbol);
    expect((await readiness.report()).checks).toEqual({ markets: true });
  });

  it('fails ready(), for waiters before and after, when its join fails; never ready', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    // Something to read (with nothing, it is caught up before it joins), then a join that is refused.
    await bus.publish(TOPICS.markets.name, AVAX.symbol, listing(1));
    await bus.close();
    const readiness = new Readiness();
    projection = new MarketsProjection(bus, new MarketRegistry([]), readiness);
    projection.onModuleInit();
    const before = projection.ready();
    await expect(projection.onApplicationBootstrap()).rejects.toThrow();
    await expect(before).rejects.toThrow();
    await expect(projection.ready()).rejects.toThrow();
    expect(projection.isReady).toBe(false);
    expect((await readiness.report()).ready).toBe(false);
    error.mockRestore();
  });
});
