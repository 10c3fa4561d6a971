import { MemoryHotStore } from '@perp/cache';
import { ADL_KEY, readAdlRank, readAdlSummary } from '@perp/contracts';
import { type AdlList, adlQuantilesHash } from './adl-quantiles';

type Entry = [string, number];

const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const C = '0x' + 'cc'.repeat(20);
const D = '0x' + 'dd'.repeat(20);

const list = (seq: number, long: Entry[], short: Entry[]): AdlList => ({
  seq,
  time: 1_000 + seq,
  long,
  short,
});

describe('ADL quantiles hash', () => {
  let hot: MemoryHotStore;
  beforeEach(() => {
    hot = new MemoryHotStore();
  });
  afterEach(() => hot.close());

  const store = (l: AdlList) => hot.hupdate(ADL_KEY('BTCUSDT'), adlQuantilesHash(l), [], { replace: true });

  it('holds each listed user with side and quantile, and the counts per quantile', async () => {
    await store(
      list(
        3,
        [
          [A, 5],
          [B, 1],
        ],
        [[C, 5]],
      ),
    );
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

  it('a newer list replaces the old one whole: dropped users are gone, a flip changes side', async () => {
    await store(list(3, [[A, 5]], [[C, 2]]));
    await store(list(4, [[C, 3]], [[D, 4]]));
    expect(await readAdlRank(hot, 'BTCUSDT', A)).toBeUndefined();
    expect(await readAdlRank(hot, 'BTCUSDT', C)).toEqual({ side: 'LONG', quantile: 3 });
    expect(await readAdlRank(hot, 'BTCUSDT', D)).toEqual({ side: 'SHORT', quantile: 4 });
    expect(Object.keys(await hot.hgetall(ADL_KEY('BTCUSDT'))).sort()).toEqual([
      'summary',
      `u:${C}`,
      `u:${D}`,
    ]);
  });

  it('quantile 0 (no position) is not stored', () => {
    expect(adlQuantilesHash(list(1, [[B, 0]], []))).toEqual({
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
