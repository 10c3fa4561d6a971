import { randomUUID } from 'node:crypto';
import { MemoryBus } from '@perp/bus';
import { type RiskCommand, riskCommand, TOPICS, topicPartitions } from '@perp/contracts';
import { RiskRouter } from './risk-router';

let bus: MemoryBus;
let router: RiskRouter;
/** What reached the risk partitions: [partition, command]. */
let copies: [number, RiskCommand][];

beforeEach(async () => {
  bus = new MemoryBus({ topics: topicPartitions(), replyTopic: TOPICS.replies.name, cloneValues: true });
  await bus.connect();
  copies = [];
  await bus.subscribe({
    groupId: `copies-${randomUUID()}`,
    topics: [TOPICS.riskCommands.name],
    handler: (m) => {
      copies.push([m.partition, riskCommand.parse(m.value)]);
    },
  });
  router = new RiskRouter(bus);
  router.onModuleInit();
  await router.onApplicationBootstrap();
});
afterEach(async () => {
  await router.onModuleDestroy();
  await bus.close();
});

const PARTITIONS = TOPICS.riskCommands.partitions;
const allPartitions = Array.from({ length: PARTITIONS }, (_, i) => i);

async function copiesOf(type: RiskCommand['type'], count: number): Promise<[number, RiskCommand][]> {
  const of = () => copies.filter(([, c]) => c.type === type);
  for (let i = 0; i < 200 && of().length < count; i++) await new Promise((r) => setTimeout(r, 5));
  return of();
}

describe('risk router', () => {
  it("copies each mark to every risk partition, with an id per copy from the mark's place; index prices to none", async () => {
    const base = { v: 1 as const, time: 1_700_000_000_000, symbol: 'BTCUSDT' };
    await bus.publish(TOPICS.prices.name, 'BTCUSDT', {
      ...base,
      id: 'index-1',
      type: 'price.index',
      indexPrice: '100',
      source: 'admin',
    });
    const mark = await bus.publish(TOPICS.prices.name, 'BTCUSDT', {
      ...base,
      id: 'mark-1',
      type: 'price.mark',
      markPrice: '101',
      indexPrice: '100',
      lastPrice: '0',
      premiumIndex: '0',
      fundingRate: '0.0001',
      interestRate: '0.0001',
      nextFundingTime: 1_700_006_400_000,
    });
    const marks = await copiesOf('price.mark', PARTITIONS);
    expect(marks.map(([p]) => p).sort((a, b) => a - b)).toEqual(allPartitions);
    expect(new Set(marks.map(([, c]) => c.id)).size).toBe(PARTITIONS);
    for (const [, c] of marks) {
      expect(c).toMatchObject({ type: 'price.mark', symbol: 'BTCUSDT', markPrice: '101', indexPrice: '100' });
      expect(c.id.startsWith(`${TOPICS.prices.name}/${mark.partition}/${mark.offset}/`)).toBe(true);
    }
    expect(copies.every(([, c]) => c.type === 'price.mark')).toBe(true);
  });

  it("copies clock ticks and funding rounds to every partition; funding copies keep the round's id", async () => {
    await bus.publish(TOPICS.clock.name, 'clock', { id: 'tick-1', v: 1, time: 5, type: 'clock.tick' });
    await bus.publish(TOPICS.funding.name, 'BTCUSDT', {
      id: 'round-1',
      v: 1,
      time: 6,
      type: 'funding.settle',
      symbol: 'BTCUSDT',
      fundingRate: '0.0001',
      markPrice: '100',
      fundingTime: 6,
    });
    const ticks = await copiesOf('clock.tick', PARTITIONS);
    expect(ticks.map(([p]) => p).sort((a, b) => a - b)).toEqual(allPartitions);
    const rounds = await copiesOf('funding.settle', PARTITIONS);
    expect(rounds.map(([p]) => p).sort((a, b) => a - b)).toEqual(allPartitions);
    expect(new Set(rounds.map(([, c]) => c.id))).toEqual(new Set(['round-1']));
  });

  it('reads no engine events: the engine copies those itself', async () => {
    await bus.publish(TOPICS.engineEvents.name, 'BTCUSDT', {
      id: `${TOPICS.engineCommands.name}/0/1/0`,
      v: 1,
      time: 1,
      type: 'order.canceled',
      symbol: 'BTCUSDT',
      seq: 1,
      orderId: 'o',
      clientOrderId: 'c',
      user: '0x00000000000000000000000000000000000000aa',
      remaining: '1',
    });
    await bus.publish(TOPICS.clock.name, 'clock', { id: 'tick-2', v: 1, time: 5, type: 'clock.tick' });
    await copiesOf('clock.tick', PARTITIONS);
    expect(copies.filter(([, c]) => c.type === 'engine.event')).toEqual([]);
  });
});
