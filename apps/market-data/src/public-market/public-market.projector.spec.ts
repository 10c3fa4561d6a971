import { type BusMessage, MemoryBus } from '@perp/bus';
import { MemoryHotStore } from '@perp/cache';
import {
  ADL_KEY,
  BOOK_TOP_KEY,
  CANDLES_VERSION_KEY,
  DEPTH_KEY,
  type EngineEvent,
  OPEN_INTEREST_KEY,
  readAdlRank,
  readBookTop,
  readDepth,
  readOpenInterest,
  readTicker,
  TICKER_KEY,
  TOPICS,
  topicPartitions,
} from '@perp/contracts';
import { DepthBook } from '@perp/domain';
import {
  MarketDataRepository,
  openTestDatabase,
  ProcessedOffsetRepository,
  type TestDatabase,
} from '@perp/persistence';
import { loadAppConfig } from '@perp/runtime';
import { restoreHot } from './market-restore';
import { PublicMarketProjector } from './public-market.projector';
import { SymbolMarket } from './symbol-market';

const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const C = '0x' + 'cc'.repeat(20);
const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0); // a Monday

type Trade = Extract<EngineEvent, { type: 'trade' }>;
type Delta = Extract<EngineEvent, { type: 'book.delta' }>;

function trade(
  seq: number,
  time: number,
  price: string,
  qty: string,
  taker: [string, 'BUY' | 'SELL', string],
  maker: string,
): Trade {
  const [takerUser, side, takerOrder] = taker;
  const split = { open: qty, close: '0' };
  return {
    v: 1,
    id: `perp.engine.commands.v1/0/${seq}/0`,
    time,
    type: 'trade',
    symbol: 'BTCUSDT',
    seq,
    tradeId: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    price,
    qty,
    taker: { orderId: takerOrder, user: takerUser, side, split },
    maker: { orderId: `m${seq}`, user: maker, side: side === 'BUY' ? 'SELL' : 'BUY', split },
  };
}

function delta(seq: number, time: number, bids: [string, string][], asks: [string, string][]): Delta {
  return {
    v: 1,
    id: `perp.engine.commands.v1/0/${seq}/9`,
    time,
    type: 'book.delta',
    symbol: 'BTCUSDT',
    seq,
    firstSeq: seq,
    prevSeq: 0,
    bids,
    asks,
  };
}

const messages = (events: EngineEvent[], firstOffset: number): BusMessage[] =>
  events.map((value, i) => ({
    topic: TOPICS.engineEvents.name,
    partition: 3,
    offset: String(firstOffset + i),
    key: 'BTCUSDT',
    value,
    headers: {},
    timestamp: 0,
  }));

describe('public market projection (real Postgres, memory hot store)', () => {
  let db: TestDatabase;
  let hot: MemoryHotStore;
  let repo: MarketDataRepository;
  const projector = (store = hot) =>
    new PublicMarketProjector(
      new MemoryBus({ topics: topicPartitions() }),
      new ProcessedOffsetRepository(db.dataSource.manager),
      repo,
      store,
      loadAppConfig({ MARKET_DATA_BATCH_MS: '0' }),
    );

  // A buys twice from B's asks (one order, one price, one time: one aggregate), then C sells to A.
  const turn1 = [
    delta(
      1,
      T0,
      [['99.0', '2']],
      [
        ['100.0', '1.5'],
        ['101.0', '1'],
      ],
    ),
    trade(2, T0 + 1_000, '100.0', '0.5', [A, 'BUY', 'oa'], B),
    trade(3, T0 + 1_000, '100.0', '1', [A, 'BUY', 'oa'], B),
    delta(3, T0 + 1_000, [], [['100.0', '0']]),
    trade(5, T0 + 61_000, '99.0', '0.5', [C, 'SELL', 'oc'], A),
    delta(5, T0 + 61_000, [['99.0', '1.5']], []),
  ];

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 2 });
    hot = new MemoryHotStore();
    repo = new MarketDataRepository(db.dataSource.manager);
    await projector().handleTurn(messages(turn1, 0));
  });
  afterAll(async () => {
    await hot.close();
    await db?.close();
  });

  it('keeps each trade under its engine sequence and aggregates one taker order at one price', async () => {
    expect(
      (await repo.trades('BTCUSDT', 10)).map((t) => [t.id, t.price, t.qty, t.quoteQty, t.takerSide]),
    ).toEqual([
      [2, '100.0', '0.5', '50', 'BUY'],
      [3, '100.0', '1', '100', 'BUY'],
      [5, '99.0', '0.5', '49.5', 'SELL'],
    ]);
    expect(
      (await repo.aggTrades('BTCUSDT', { limit: 10 })).map((a) => [
        a.id,
        a.qty,
        a.firstId,
        a.lastId,
        a.buyerMaker,
      ]),
    ).toEqual([
      [2, '1.5', 2, 3, false],
      [5, '0.5', 5, 5, true],
    ]);
  });

  it('builds true candles of every interval with taker-buy volumes', async () => {
    const one = await repo.candles('BTCUSDT', 'last', '1m', { limit: 10 });
    expect(one.map((c) => [c.openTime - T0, c.open, c.close, c.volume, c.count, c.takerBuyVolume])).toEqual([
      [0, '100', '100', '1.5', 2, '1.5'],
      [MIN, '99', '99', '0.5', 1, '0'],
    ]);
    const [week] = await repo.candles('BTCUSDT', 'last', '1w', { limit: 10 });
    expect([week!.openTime, week!.high, week!.low, week!.quoteVolume, week!.count]).toEqual([
      Date.UTC(2026, 10, 23),
      '100',
      '99',
      '199.5',
      3,
    ]);
    expect(await repo.candles('BTCUSDT', 'last', '3m', { limit: 10 })).toHaveLength(1);
  });

  it('writes the L2 book with the engine sequence and the rolling ticker to the hot store', async () => {
    const depth = await readDepth(hot, 'BTCUSDT');
    const book = DepthBook.fromJSON({ lastUpdateId: depth.seq, bids: depth.bids, asks: depth.asks });
    expect(book.top(10)).toEqual({ lastUpdateId: 5, bids: [['99.0', '1.5']], asks: [['101.0', '1']] });
    expect(await readTicker(hot, 'BTCUSDT')).toMatchObject({
      open: '100',
      last: '99',
      high: '100',
      low: '99',
      volume: '2',
      quoteVolume: '199.5',
      count: 3,
      firstTime: T0 + 1_000,
      lastTime: T0 + 61_000,
      lastTradeId: 5,
      lastPrice: '99',
    });
  });

  it('follows positions into open interest and long/short shares per period', async () => {
    expect((await repo.positions('BTCUSDT')).map((p) => [p.user, p.size])).toEqual(
      [
        [A, '2'],
        [B, '-1.5'],
        [C, '-0.5'],
      ].sort(),
    );
    const [stat] = await repo.statistics('BTCUSDT', '5m', { limit: 10 });
    expect(stat).toMatchObject({ time: T0, openInterest: '2', openInterestValue: '198' });
    // One account long of three; the top 20 % (one account) is A, long.
    expect(Number(stat!.longAccounts)).toBeCloseTo(1 / 3, 12);
    expect(Number(stat!.shortAccounts)).toBeCloseTo(2 / 3, 12);
    expect([stat!.topLongAccounts, stat!.topShortAccounts, stat!.topLongPositions]).toEqual(['1', '0', '1']);
  });

  it('applies a turn once: delivered again, nothing doubles', async () => {
    await projector().handleTurn(messages(turn1, 0));
    expect(await repo.trades('BTCUSDT', 10)).toHaveLength(3);
    const [one] = await repo.candles('BTCUSDT', 'last', '1m', { limit: 1, startTime: T0 });
    expect(one!.volume).toBe('1.5');
  });

  it('a new owner resumes from what was written: candles, aggregates and the ticker go on', async () => {
    const p = projector();
    await p.handleTurn(
      messages(
        [
          trade(7, T0 + 61_000, '99.0', '0.25', [C, 'SELL', 'oc'], A),
          delta(7, T0 + 61_000, [['99.0', '1.25']], []),
        ],
        6,
      ),
    );
    const one = await repo.candles('BTCUSDT', 'last', '1m', { limit: 1 });
    expect([one[0]!.volume, one[0]!.count]).toEqual(['0.75', 2]);
    expect((await repo.aggTrades('BTCUSDT', { limit: 1 })).map((a) => [a.id, a.qty, a.lastId])).toEqual([
      [5, '0.75', 7],
    ]);
    expect(await readTicker(hot, 'BTCUSDT')).toMatchObject({ count: 4, volume: '2.25', lastTradeId: 7 });
    expect((await readDepth(hot, 'BTCUSDT')).bids).toEqual([['99.0', '1.25']]);
  });

  it('a turn whose write fails leaves nothing behind and applies whole when delivered again', async () => {
    const p = projector();
    const turn = messages([trade(9, T0 + 63_000, '98.0', '1', [A, 'SELL', 'oa2'], B)], 8);
    const marks = (p as unknown as { marks: ProcessedOffsetRepository }).marks;
    const spy = jest.spyOn(marks, 'applyWritesOnce').mockRejectedValueOnce(new Error('database down'));
    const version = await hot.get(CANDLES_VERSION_KEY('BTCUSDT'));
    await expect(p.handleTurn(turn)).rejects.toThrow('database down');
    // Kline reads key their caches on it: it moves only once the candles are stored.
    expect(await hot.get(CANDLES_VERSION_KEY('BTCUSDT'))).toBe(version);
    spy.mockRestore();
    await p.handleTurn(turn);
    expect(await hot.get(CANDLES_VERSION_KEY('BTCUSDT'))).toBe('9');
    const one = await repo.candles('BTCUSDT', 'last', '1m', { limit: 1 });
    expect([one[0]!.volume, one[0]!.count, one[0]!.low]).toEqual(['1.75', 3, '98']);
  });

  const close = { open: '0', close: '0.5' };
  const adlClose: Trade = {
    ...trade(11, T0 + 64_000, '50.0', '0.5', [A, 'SELL', 'liq'], C),
    kind: 'ADL',
    taker: { orderId: 'liq', user: A, side: 'SELL', split: close },
    maker: { orderId: 'adl', user: C, side: 'BUY', split: close },
  };

  it('an ADL close moves positions only: no trade, aggregate, candle or ticker change', async () => {
    const before = await readTicker(hot, 'BTCUSDT');
    await projector().handleTurn(messages([adlClose], 10));
    expect(await repo.trades('BTCUSDT', 10)).toHaveLength(5);
    expect((await repo.aggTrades('BTCUSDT', { limit: 10 })).map((a) => a.lastId)).not.toContain(11);
    const [one] = await repo.candles('BTCUSDT', 'last', '1m', { limit: 1 });
    expect([one!.volume, one!.low]).toEqual(['1.75', '98']);
    expect(await readTicker(hot, 'BTCUSDT')).toEqual(before);
    const after = new Map((await repo.positions('BTCUSDT')).map((p) => [p.user, p.size]));
    // A was long 1.25 and C short 0.75 (the trades above).
    expect([after.get(A), after.get(C)]).toEqual(['0.75', '-0.25']);
    const oi = await readOpenInterest(hot, 'BTCUSDT');
    expect([oi.long.toFixed(), oi.short.toFixed(), oi.time]).toEqual(['0.75', '0.75', T0 + 64_000]);
  });

  it('an ADL close an engine replay emits again (same sequence, later offset) is not counted twice', async () => {
    // A new owner: its state comes from Postgres, where the close is the last trade in the positions.
    await projector().handleTurn(messages([adlClose], 12));
    const after = new Map((await repo.positions('BTCUSDT')).map((p) => [p.user, p.size]));
    expect([after.get(A), after.get(C)]).toEqual(['0.75', '-0.25']);
    expect((await readOpenInterest(hot, 'BTCUSDT')).long.toFixed()).toBe('0.75');
  });

  it("projects the engine's ADL quantiles; an older list changes nothing", async () => {
    const list = (seq: number, long: [string, number][]): EngineEvent => ({
      v: 1,
      id: `perp.engine.commands.v1/0/${seq}/1`,
      time: T0 + 65_000 + seq,
      type: 'adl.quantiles',
      symbol: 'BTCUSDT',
      seq,
      long,
      short: [
        [B, 4],
        [C, 1],
      ],
    });
    await projector().handleTurn(messages([list(12, [[A, 5]]), list(11, [[A, 1]])], 13));
    expect(await readAdlRank(hot, 'BTCUSDT', A)).toEqual({ side: 'LONG', quantile: 5 });
    expect(await readAdlRank(hot, 'BTCUSDT', B)).toEqual({ side: 'SHORT', quantile: 4 });
    await projector().handleTurn(messages([list(10, [[C, 2]])], 15));
    expect(await readAdlRank(hot, 'BTCUSDT', A)).toEqual({ side: 'LONG', quantile: 5 });
  });

  it("writes the book's top with the book", async () => {
    const top = await readBookTop(hot, 'BTCUSDT');
    expect([top.bid.price.toFixed(), top.bid.qty.toFixed(), top.ask.price.toFixed(), top.seq]).toEqual([
      '99',
      '1.25',
      '101',
      7,
    ]);
  });

  describe('a hot store that lost the forms (a restart of the embedded exchange, a flushed Redis)', () => {
    const KEYS = [DEPTH_KEY, BOOK_TOP_KEY, OPEN_INTEREST_KEY, ADL_KEY].map((k) => k('BTCUSDT'));
    const snapshot = async (store: MemoryHotStore) => ({
      hashes: await Promise.all(KEYS.map((k) => store.hgetall(k))),
      ticker: await store.get(TICKER_KEY('BTCUSDT')),
      version: await store.get(CANDLES_VERSION_KEY('BTCUSDT')),
    });

    it('a new owner writes them again from Postgres: the same book, top, ticker, open interest and ADL ranks', async () => {
      const before = await snapshot(hot);
      expect(before.hashes.every((h) => Object.keys(h).length > 0)).toBe(true);
      const fresh = new MemoryHotStore();
      // At the last trade's time, the ticker's 24 h window is the one the turns wrote.
      expect(await projector(fresh).restore(3, T0 + 63_000)).toEqual(['BTCUSDT']);
      expect(await snapshot(fresh)).toEqual(before);
      // Another partition holds none of these symbols.
      expect(await projector(new MemoryHotStore()).restore(4, T0)).toEqual([]);
      await fresh.close();
    });

    it('forms the hot store still holds, or holds newer, are left alone; a lost one is written again', async () => {
      expect(await projector().restore(3, T0 + 63_000)).toEqual([]);
      const store = new MemoryHotStore();
      await projector(store).restore(3, T0 + 63_000);
      // Ahead of Postgres (a turn that crashed between its two writes): kept.
      await store.hset(DEPTH_KEY('BTCUSDT'), { seq: '99', 'b:98.0': '4' });
      await store.del(TICKER_KEY('BTCUSDT'));
      const s = await SymbolMarket.load('BTCUSDT', repo);
      expect(await restoreHot(store, s, T0 + 63_000)).toEqual(['ticker']);
      expect((await readDepth(store, 'BTCUSDT')).seq).toBe(99);
      expect(await readTicker(store, 'BTCUSDT')).toEqual(await readTicker(hot, 'BTCUSDT'));
      await store.close();
    });

    it('the next turn after a restore goes on from the restored state', async () => {
      const store = new MemoryHotStore();
      const p = projector(store);
      await p.restore(3, T0 + 63_000);
      await p.handleTurn(messages([delta(13, T0 + 66_000, [['99.0', '0']], [['100.5', '2']])], 16));
      const depth = await readDepth(store, 'BTCUSDT');
      const book = DepthBook.fromJSON({ lastUpdateId: depth.seq, bids: depth.bids, asks: depth.asks });
      expect(book.top(10)).toEqual({
        lastUpdateId: 13,
        bids: [],
        asks: [
          ['100.5', '2'],
          ['101.0', '1'],
        ],
      });
      // The emptied level is gone from the hash, not left as "0".
      expect(Object.keys(await store.hgetall(DEPTH_KEY('BTCUSDT'))).sort()).toEqual([
        'a:100.5',
        'a:101.0',
        'seq',
        'time',
      ]);
      await store.close();
    });
  });
});
