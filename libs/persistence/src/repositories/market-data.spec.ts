import { stableUuid } from '@perp/contracts';
import type { MarketCandleEntity, MarketTradeEntity } from '../entities';
import { tickerMinute } from '../testing/market-rows';
import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { MarketDataRepository } from './market-data.repository';

const trade = (id: number, time: number, fields: Partial<MarketTradeEntity> = {}): MarketTradeEntity => ({
  symbol: 'BTCUSDT',
  id,
  tradeId: stableUuid(`t${id}`),
  price: '100.5',
  qty: '0.002',
  quoteQty: '0.201',
  takerSide: 'BUY',
  takerOrderId: 'o1',
  time,
  ...fields,
});

const candle = (interval: string, openTime: number, close: string): MarketCandleEntity => ({
  symbol: 'BTCUSDT',
  series: 'last',
  interval,
  openTime,
  closeTime: openTime + 59_999,
  open: '1',
  high: '2',
  low: '0.5',
  close,
  volume: '3',
  quoteVolume: '4.5',
  count: 2,
  takerBuyVolume: '1',
  takerBuyQuoteVolume: '1.5',
});

describe('market-data projections (real Postgres)', () => {
  let db: TestDatabase;
  let md: MarketDataRepository;

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 2 });
    md = new MarketDataRepository(db.dataSource.manager);
    await md.insertTrades([10, 12, 15, 20, 21].map((id) => trade(id, 1_000 + id)));
  });
  afterAll(() => db?.close());

  it('keeps trades once and pages them by id, oldest first', async () => {
    await md.insertTrades([trade(12, 9_999, { price: '1' })]); // a replay changes nothing
    expect((await md.trades('BTCUSDT', 2)).map((t) => t.id)).toEqual([20, 21]);
    expect((await md.trades('BTCUSDT', 3, 11)).map((t) => [t.id, t.price, t.time])).toEqual([
      [12, '100.5', 1_012],
      [15, '100.5', 1_015],
      [20, '100.5', 1_020],
    ]);
    expect(await md.trades('ETHUSDT', 10)).toEqual([]);
    expect((await md.lastTrade('BTCUSDT'))?.id).toBe(21);
  });

  it('grows an aggregate in place and pages aggregates by id or time', async () => {
    const agg = {
      symbol: 'BTCUSDT',
      price: '100',
      time: 5_000,
      buyerMaker: false,
      takerOrderId: 'o1',
    };
    await md.upsertAggTrades([{ ...agg, id: 1, qty: '1', firstId: 1, lastId: 1 }]);
    await md.upsertAggTrades([
      { ...agg, id: 1, qty: '3', firstId: 1, lastId: 4 },
      { ...agg, id: 5, qty: '2', firstId: 5, lastId: 5, time: 6_000 },
    ]);
    expect((await md.aggTrades('BTCUSDT', { limit: 10 })).map((a) => [a.id, a.qty, a.lastId])).toEqual([
      [1, '3', 4],
      [5, '2', 5],
    ]);
    expect((await md.aggTrades('BTCUSDT', { limit: 10, fromId: 2 })).map((a) => a.id)).toEqual([5]);
    expect((await md.aggTrades('BTCUSDT', { limit: 10, startTime: 5_500 })).map((a) => a.id)).toEqual([5]);
    expect((await md.aggTrades('BTCUSDT', { limit: 10, endTime: 5_500 })).map((a) => a.id)).toEqual([1]);
    expect((await md.lastAggTrade('BTCUSDT'))?.id).toBe(5);
  });

  it('upserts candles and answers windows the way Binance pages klines', async () => {
    await md.upsertCandles([0, 1, 2, 3].map((m) => candle('1m', m * 60_000, `${m}`)));
    await md.upsertCandles([candle('1m', 3 * 60_000, '9'), candle('5m', 0, '7')]);
    const closes = (page: Parameters<MarketDataRepository['candles']>[3]) =>
      md.candles('BTCUSDT', 'last', '1m', page).then((rows) => rows.map((r) => r.close));
    expect(await closes({ limit: 2 })).toEqual(['2', '9']);
    expect(await closes({ limit: 2, startTime: 60_000 })).toEqual(['1', '2']);
    expect(await closes({ limit: 10, endTime: 60_000 })).toEqual(['0', '1']);
    expect(await closes({ limit: 10, startTime: 60_000, endTime: 120_000 })).toEqual(['1', '2']);
    expect((await md.latestCandles('BTCUSDT', 'last')).map((c) => [c.interval, c.close])).toEqual([
      ['1m', '9'],
      ['5m', '7'],
    ]);
  });

  it('finds the candle before a window for its gap filling', async () => {
    const before = (time: number, interval = '1m') =>
      md.candleBefore('BTCUSDT', 'last', interval, time).then((c) => c && [c.openTime, c.close]);
    expect(await before(120_000)).toEqual([60_000, '1']);
    expect(await before(120_001)).toEqual([120_000, '2']);
    expect(await before(10 * 60_000)).toEqual([180_000, '9']);
    expect(await before(0)).toBeNull();
    expect(await before(60_000, '5m')).toEqual([0, '7']);
    expect(await md.candleBefore('BTCUSDT', 'mark', '1m', 10 * 60_000)).toBeNull();
  });

  it('keeps the ticker minutes of the last day', async () => {
    const minute = tickerMinute;
    await md.saveTickerMinutes([minute(0, '1'), minute(60_000, '2')]);
    await md.saveTickerMinutes([minute(60_000, '3'), minute(120_000, '4')], 60_000);
    expect((await md.tickerMinutesSince('BTCUSDT', 0)).map((m) => [m.openTime, m.close, m.lastQty])).toEqual([
      [60_000, '3', '0.5'],
      [120_000, '4', '0.5'],
    ]);
    expect((await md.tickerMinutesSince('BTCUSDT', 61_000)).map((m) => m.openTime)).toEqual([120_000]);
  });

  it('keeps open positions and forgets closed ones', async () => {
    await md.savePositions([
      { symbol: 'BTCUSDT', user: '0xa', size: '1.5' },
      { symbol: 'BTCUSDT', user: '0xb', size: '-1.5' },
      { symbol: 'BTCUSDT', user: '0xc', size: '2' },
      { symbol: 'ETHUSDT', user: '0xa', size: '3' },
      { symbol: 'ETHUSDT', user: '0xc', size: '-3' },
    ]);
    // Two closed in one call (one statement): only those (symbol, user) pairs go, not 0xa's ETH
    // position nor BTC's 0xc (each key matches as a pair).
    await md.savePositions([
      { symbol: 'BTCUSDT', user: '0xa', size: '0' },
      { symbol: 'BTCUSDT', user: '0xb', size: '-0.5' },
      { symbol: 'ETHUSDT', user: '0xc', size: '0.000' },
    ]);
    expect(await md.positions('BTCUSDT')).toEqual([
      { symbol: 'BTCUSDT', user: '0xb', size: '-0.5' },
      { symbol: 'BTCUSDT', user: '0xc', size: '2' },
    ]);
    expect(await md.positions('ETHUSDT')).toEqual([{ symbol: 'ETHUSDT', user: '0xa', size: '3' }]);
  });

  it('pages statistics and funding rates by time', async () => {
    const stat = (time: number, oi: string) => ({
      symbol: 'BTCUSDT',
      period: '5m',
      time,
      openInterest: oi,
      openInterestValue: oi,
      longAccounts: '0.5',
      shortAccounts: '0.5',
      topLongAccounts: '1',
      topShortAccounts: '0',
      topLongPositions: '1',
      topShortPositions: '0',
    });
    await md.upsertStatistics([stat(0, '1'), stat(300_000, '2')]);
    await md.upsertStatistics([stat(300_000, '3')]);
    expect((await md.statistics('BTCUSDT', '5m', { limit: 30 })).map((s) => s.openInterest)).toEqual([
      '1',
      '3',
    ]);
    await md.insertFundingRates([
      { symbol: 'BTCUSDT', fundingTime: 8, fundingRate: '0.0001', markPrice: '100' },
      { symbol: 'ETHUSDT', fundingTime: 8, fundingRate: '-0.0001', markPrice: '10' },
      { symbol: 'BTCUSDT', fundingTime: 16, fundingRate: '0.0002', markPrice: '101' },
    ]);
    expect((await md.fundingRates('BTCUSDT', { limit: 1 })).map((f) => f.fundingTime)).toEqual([16]);
    expect((await md.fundingRates(undefined, { limit: 10, endTime: 8 })).map((f) => f.symbol)).toEqual([
      'BTCUSDT',
      'ETHUSDT',
    ]);
  });
});
