import { type BusMessage, MemoryBus, silentLogger, type TopicPartition } from '@perp/bus';
import { topicPartitions } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { Readiness } from '@perp/runtime';
import { MarketsProjection } from '../markets/markets-projection';
import { ShardInput, type ShardLifecycle } from './shard-input';

const TOPIC = 'shard-commands';
const GROUP = 'shard';

/** A shard that records what its input drove, and whether the markets were read by then. */
class RecordingShard implements ShardLifecycle {
  readonly events: string[] = [];
  constructor(private readonly markets: MarketsProjection) {}
  async assigned(tps: TopicPartition[]): Promise<void> {
    this.events.push(`assigned ${tps.map((t) => t.partition)} (markets read: ${this.markets.isReady})`);
  }
  async revoked(tps: TopicPartition[]): Promise<void> {
    this.events.push(`revoked ${tps.map((t) => t.partition)}`);
  }
  stop(): void {
    this.events.push('stop');
  }
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ShardInput', () => {
  let bus: MemoryBus;
  let markets: MarketsProjection;

  beforeEach(async () => {
    bus = new MemoryBus({
      topics: { ...topicPartitions(), [TOPIC]: 1 },
      logger: silentLogger,
      retry: { initialMs: 5, maxMs: 5 },
    });
    await bus.connect();
    markets = new MarketsProjection(bus, new MarketRegistry([]), new Readiness());
  });
  afterEach(async () => {
    await markets.onModuleDestroy();
    await bus.close();
  });

  /** A member: its shard, its input and the offsets its turns were given, turn by turn. */
  function member(turn: (ms: readonly BusMessage[]) => void = () => undefined) {
    const shard = new RecordingShard(markets);
    const input = new ShardInput(bus, markets, shard);
    const turns: string[][] = [];
    input.join(GROUP, TOPIC, async (ms) => {
      turns.push(ms.map((m) => m.offset));
      turn(ms);
    });
    return { shard, input, turns };
  }

  it('restores partitions once the markets are read, hands over every waiting message, commits each turn; close leaves, then stops', async () => {
    for (let i = 0; i < 3; i++) await bus.publish(TOPIC, 'k', { i });
    markets.onModuleInit();
    const first = member();
    await markets.onApplicationBootstrap();
    await first.input.joined();
    await until(() => first.turns.flat().length === 3);
    expect(first.turns.flat()).toEqual(['0', '1', '2']);
    await first.input.close();
    expect(first.shard.events).toEqual(['assigned 0 (markets read: true)', 'revoked 0', 'stop']);

    // The next member starts after what the first one's turns committed.
    await bus.publish(TOPIC, 'k', { i: 3 });
    const second = member();
    await second.input.joined();
    await until(() => second.turns.length > 0);
    expect(second.turns).toEqual([['3']]);
    await second.input.close();
  });

  it('a turn that throws is not committed: its messages come again, to the next member too', async () => {
    await bus.publish(TOPIC, 'k', { i: 0 });
    markets.onModuleInit();
    await markets.onApplicationBootstrap();
    const failing = member(() => {
      throw new Error('the log refused the turn');
    });
    await failing.input.joined();
    await until(() => failing.turns.length >= 2);
    await failing.input.close();
    expect(new Set(failing.turns.flat())).toEqual(new Set(['0']));

    const next = member();
    await next.input.joined();
    await until(() => next.turns.length > 0);
    expect(next.turns).toEqual([['0']]);
    await next.input.close();
  });
});
