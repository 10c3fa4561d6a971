import { MemoryBus } from '@perp/bus';
import { MemoryHotStore } from '@perp/cache';
import {
  ADL_KEY,
  type EngineEvent,
  readAdlRank,
  readAdlSummary,
  TOPICS,
  topicPartitions,
} from '@perp/contracts';
import { nextAdlQuantiles, projectAdlQuantiles } from './adl-quantiles';
import { AdlQuantilesProjector } from './adl-quantiles.projector';

type AdlQuantiles = Extract<EngineEvent, { type: 'adl.quantiles' }>;
type Entry = [string, number];

const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const C = '0x' + 'cc'.repeat(20);
const D = '0x' + 'dd'.repeat(20);

const quantiles = (seq: number, long: Entry[], short: Entry[], symbol = 'BTCUSDT'): AdlQuantiles => ({
  id: `perp.engine.commands.v1/0/${seq}/0`,
  v: 1,
  time: 1_000 + seq,
  type: 'adl.quantiles',
  symbol,
  seq,
  long,
  short,
});

describe('ADL quantiles projection', () => {
  let hot: MemoryHotStore;
  beforeEach(() => {
    hot = new MemoryHotStore();
  });
  afterEach(() => hot.close());

  it('stores each listed user with side and quantile, and the counts per quantile', async () => {
    expect(
      await projectAdlQuantiles(
        hot,
        quantiles(
          3,
          [
            [A, 5],
            [B, 1],
          ],
          [[C, 5]],
        ),
      ),
    ).toBe(true);
    expect(await readAdlRank(hot, 'BTCUSDT', A)).toEqual({ side: 'LONG', quantile: 5 });
    expect(await readAdlRank(hot, 'BTCUSDT', C)).toEqual({ side: 'SHORT', quantile: 5 });
    expect(await readAdlRank(hot, 'BTCUSDT', D)).toBeUndefined();
    expect(await readAdlSummary(hot, 'BTCUSDT')).toEqual({
      seq: 3,
      time: 1_003,
      long: [1, 0, 0, 0, 1],
      short: [0, 0, 0, 0, 1],
    });
  });

  it('a newer list replaces the old one: dropped users are deleted, a flip changes side', async () => {
    await projectAdlQuantiles(hot, quantiles(3, [[A, 5]], [[C, 2]]));
    await projectAdlQuantiles(hot, quantiles(4, [[C, 3]], [[D, 4]]));
    expect(await readAdlRank(hot, 'BTCUSDT', A)).toBeUndefined();
    expect(await readAdlRank(hot, 'BTCUSDT', C)).toEqual({ side: 'LONG', quantile: 3 });
    expect(await readAdlRank(hot, 'BTCUSDT', D)).toEqual({ side: 'SHORT', quantile: 4 });
    expect(Object.keys(await hot.hgetall(ADL_KEY('BTCUSDT'))).sort()).toEqual([
      'summary',
      `u:${C}`,
      `u:${D}`,
    ]);
  });

  it('an older or replayed list changes nothing; quantile 0 is not stored', async () => {
    await projectAdlQuantiles(hot, quantiles(5, [[A, 2]], []));
    expect(await projectAdlQuantiles(hot, quantiles(5, [[B, 1]], []))).toBe(false);
    expect(await projectAdlQuantiles(hot, quantiles(4, [[B, 1]], []))).toBe(false);
    expect(await readAdlRank(hot, 'BTCUSDT', B)).toBeUndefined();
    expect(nextAdlQuantiles({}, quantiles(1, [[B, 0]], []))?.set).toEqual({
      summary: JSON.stringify({ seq: 1, time: 1_001, long: [0, 0, 0, 0, 0], short: [0, 0, 0, 0, 0] }),
    });
  });

  it('a symbol never projected reads as no rank and an empty distribution', async () => {
    expect(await readAdlSummary(hot, 'ETHUSDT')).toEqual({
      seq: -1,
      time: 0,
      long: [0, 0, 0, 0, 0],
      short: [0, 0, 0, 0, 0],
    });
  });
});

describe('AdlQuantilesProjector', () => {
  it('projects adl.quantiles events from the engine-events log, per symbol', async () => {
    const bus = new MemoryBus({ topics: topicPartitions(), cloneValues: true });
    await bus.connect();
    const hot = new MemoryHotStore();
    const projector = new AdlQuantilesProjector(bus, hot);
    await projector.onApplicationBootstrap();
    try {
      const publish = (e: EngineEvent) => bus.publish(TOPICS.engineEvents.name, e.symbol, e);
      await publish(quantiles(1, [[A, 4]], [[B, 4]], 'ETHUSDT'));
      await publish(quantiles(2, [[A, 1]], [[B, 2]], 'ETHUSDT'));
      await publish(quantiles(1, [[C, 3]], [], 'SOLUSDT'));
      const deadline = Date.now() + 5_000;
      while (
        (await readAdlSummary(hot, 'ETHUSDT')).seq < 2 ||
        (await readAdlSummary(hot, 'SOLUSDT')).seq < 1
      ) {
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(await readAdlRank(hot, 'ETHUSDT', A)).toEqual({ side: 'LONG', quantile: 1 });
      expect(await readAdlRank(hot, 'ETHUSDT', B)).toEqual({ side: 'SHORT', quantile: 2 });
      expect(await readAdlRank(hot, 'SOLUSDT', C)).toEqual({ side: 'LONG', quantile: 3 });
    } finally {
      await projector.onModuleDestroy();
      await bus.close();
      await hot.close();
    }
  });
});
