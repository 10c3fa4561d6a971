import type { HotStore } from '@perp/cache';
import { CANDLES_VERSION_KEY } from '@perp/contracts';
import type { MarketCandleEntity, MarketDataRepository } from '@perp/persistence';
import { BTC } from '../../markets/market.fixture';
import { KLINE_CACHE_MS, KlineReader } from './kline-reader';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 16);

const row = (openTime: number, close: string): MarketCandleEntity => ({
  symbol: 'BTCUSDT',
  series: 'last',
  interval: '1m',
  openTime,
  closeTime: openTime + MIN - 1,
  open: close,
  high: close,
  low: close,
  close,
  volume: '1',
  quoteVolume: close,
  count: 1,
  takerBuyVolume: '1',
  takerBuyQuoteVolume: close,
});

/** A repository holding `stored` 1m candles, counting its reads. */
function fakes(stored: MarketCandleEntity[], lastTradeId: { id: number }) {
  const reads = { candles: 0, before: 0 };
  const md = {
    candles: (_s: string, _series: string, _i: string, page: { startTime?: number; endTime?: number }) => {
      reads.candles++;
      return Promise.resolve(
        stored.filter(
          (c) =>
            (page.startTime === undefined || c.openTime >= page.startTime) && c.openTime <= page.endTime!,
        ),
      );
    },
    candleBefore: (_s: string, _series: string, _i: string, time: number) => {
      reads.before++;
      return Promise.resolve([...stored].reverse().find((c) => c.openTime < time) ?? null);
    },
  } as unknown as MarketDataRepository;
  const hot = {
    get: (key: string) =>
      Promise.resolve(key === CANDLES_VERSION_KEY('BTCUSDT') ? String(lastTradeId.id) : undefined),
  } as unknown as HotStore;
  return { reader: new KlineReader(md, hot), reads };
}

describe('KlineReader', () => {
  const stored = [row(T0, '100'), row(T0 + 3 * MIN, '103')];

  it('reads the window once, fills the gaps, and reads the close before a window opening in a gap', async () => {
    const { reader, reads } = fakes(stored, { id: 1 });
    const rows = await reader.rows(BTC, 'last', '1m', { startTime: T0 + MIN, limit: 500 }, T0 + 4 * MIN + 5);
    expect(rows.map((r) => [r[0], r[4], r[8]])).toEqual([
      [T0 + MIN, '100.0', 0],
      [T0 + 2 * MIN, '100.0', 0],
      [T0 + 3 * MIN, '103.0', 1],
      [T0 + 4 * MIN, '103.0', 0],
    ]);
    expect(reads).toEqual({ candles: 1, before: 1 });
    await reader.rows(BTC, 'last', '1m', { startTime: T0, limit: 500 }, T0 + 4 * MIN + 5);
    expect(reads).toEqual({ candles: 2, before: 1 }); // opens on a stored candle: no read before it
  });

  it('reuses an answer for the same request until a trade, the next bucket or the cache time', async () => {
    const last = { id: 1 };
    const { reader, reads } = fakes(stored, last);
    const q = { limit: 10 };
    const now = T0 + 4 * MIN + 5;
    const first = await reader.rows(BTC, 'last', '1m', q, now);
    expect(await reader.rows(BTC, 'last', '1m', q, now + 10)).toBe(first);
    expect(reads.candles).toBe(1);
    last.id = 2; // a trade
    await reader.rows(BTC, 'last', '1m', q, now + 20);
    expect(reads.candles).toBe(2);
    await reader.rows(BTC, 'last', '1m', q, T0 + 5 * MIN); // the next minute: one more flat candle
    expect(reads.candles).toBe(3);
    await reader.rows(BTC, 'last', '1m', q, T0 + 5 * MIN + KLINE_CACHE_MS);
    expect(reads.candles).toBe(4);
  });

  it('concurrent identical requests share one read', async () => {
    const { reader, reads } = fakes(stored, { id: 1 });
    const now = T0 + 4 * MIN;
    await Promise.all([1, 2, 3].map(() => reader.rows(BTC, 'mark', '1m', { limit: 5 }, now)));
    expect(reads.candles).toBe(1);
  });

  it('holds answers for the cache time only, however many distinct queries came', async () => {
    const { reader } = fakes(stored, { id: 1 });
    const now = T0 + 4 * MIN;
    for (let i = 0; i < 500; i++)
      await reader.rows(
        BTC,
        'last',
        '1m',
        { startTime: T0 - i * MIN, limit: 1500 },
        now + Math.floor(i / 100),
      );
    expect(reader.cached).toBe(500);
    await reader.rows(BTC, 'last', '1m', { limit: 5 }, now + 4 + KLINE_CACHE_MS);
    expect(reader.cached).toBe(1);
  });
});
