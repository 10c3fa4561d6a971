import { MemoryHotStore } from '@perp/cache';
import { FapiFields } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { BTC } from '../../markets/market.fixture';
import { FapiTickersController } from './fapi-tickers.controller';
import { OPTIONAL_SYMBOL } from './market-params';

describe('FapiTickersController: a market nothing was projected for yet', () => {
  let hot: MemoryHotStore;
  let tickers: FapiTickersController;
  const q = new FapiFields(OPTIONAL_SYMBOL, { symbol: 'BTCUSDT' });
  const T = 1_790_000_000_000;
  beforeEach(() => {
    jest.useFakeTimers({ now: T });
    hot = new MemoryHotStore();
    tickers = new FapiTickersController(new MarketRegistry([BTC]), hot);
  });
  afterEach(async () => {
    jest.useRealTimers();
    await hot.close();
  });

  it.each([
    ['ticker/24hr', 'ticker24hr', 'ticker24hrNow', 'closeTime'],
    ['ticker/price', 'price', 'priceNow', 'time'],
    ['ticker/bookTicker', 'bookTicker', 'bookTickerNow', 'time'],
  ] as const)(
    '%s: the answer stamped with the time is kept for its millisecond only',
    async (_route, read, kept, timeField) => {
      expect(tickers[kept](q)).toBeUndefined();
      const view = (await tickers[read](q)) as unknown as Record<string, unknown>;
      expect(view[timeField]).toBe(T);
      // Within the same millisecond the kept body is that answer, byte for byte.
      expect(tickers[kept](q)?.toString()).toBe(JSON.stringify(view));
      jest.setSystemTime(T + 1);
      expect(tickers[kept](q)).toBeUndefined();
      const next = (await tickers[read](q)) as unknown as Record<string, unknown>;
      expect(next[timeField]).toBe(T + 1);
      expect(tickers[kept](q)?.toString()).toBe(JSON.stringify(next));
    },
  );
});
