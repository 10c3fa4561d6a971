import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, OPEN_INTEREST_KEY } from '@perp/contracts';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { MarketDataRepository, PERSISTENCE_DATA_SOURCE } from '@perp/persistence';
import { http, type HttpResponse } from '@perp/testing';
import type { DataSource } from 'typeorm';

/** Query parameters as sent (numbers in decimal). */
const queryString = (q: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();

const H = 3_600_000;
const EIGHT_H = 8 * H;
// Settled funding times: three past 8 h boundaries.
const F1 = Math.floor(Date.now() / EIGHT_H) * EIGHT_H - 2 * EIGHT_H;
const F2 = F1 + EIGHT_H;
const F3 = F2 + EIGHT_H;
const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];

const invalidSymbol = { code: -1121, msg: 'Invalid symbol.' };

/** Mark price, funding and open interest over HTTP, on data seeded through the repository. */
describe('FAPI premiumIndex, fundingRate, fundingInfo, openInterest (embedded exchange)', () => {
  let ex: InProcessExchange;
  let hot: HotStore;
  const PRICE_TIME = Date.now() - 1_500;

  let nextIp = 1;
  const get = (path: string, query: Record<string, string | number> = {}): Promise<HttpResponse> =>
    http(`${ex.url}/fapi/v1/${path}?${queryString(query)}`, {
      // A client of its own per request, so the weight header is this request's weight.
      headers: { 'x-forwarded-for': `10.7.${Math.floor(nextIp / 250)}.${nextIp++ % 250}` },
    });
  const weight = (r: HttpResponse) => Number(r.headers['x-mbx-used-weight-1m']);

  beforeAll(async () => {
    ex = await startInProcessExchange({ TRUSTED_PROXIES: '127.0.0.1' });
    hot = ex.app.get<HotStore>(HOT_STORE);
    const md = new MarketDataRepository(ex.app.get<DataSource>(PERSISTENCE_DATA_SOURCE).manager);
    await md.insertFundingRates([
      { symbol: 'BTCUSDT', fundingTime: F1, fundingRate: '0.0001', markPrice: '64000.5' },
      { symbol: 'BTCUSDT', fundingTime: F2, fundingRate: '-0.000375', markPrice: '64100' },
      { symbol: 'ETHUSDT', fundingTime: F2, fundingRate: '0.00005', markPrice: '3500.25' },
      { symbol: 'BTCUSDT', fundingTime: F3, fundingRate: '0.0002', markPrice: '64200.1' },
    ]);
    await hot.hset(HOT_KEYS.price('BTCUSDT'), {
      markPrice: '65000.1',
      indexPrice: '65000.1',
      time: String(PRICE_TIME),
    });
    await hot.hset(OPEN_INTEREST_KEY('BTCUSDT'), { long: '1.25', short: '1.25', time: String(PRICE_TIME) });
  });
  afterAll(() => ex?.close());

  describe('premiumIndex', () => {
    it("one symbol: Binance's mark price record, lastFundingRate = the latest settled rate", async () => {
      const before = Date.now();
      const r = await get('premiumIndex', { symbol: 'btc-usd' });
      const after = Date.now();
      expect([r.status, weight(r)]).toEqual([200, 1]);
      expect(r.body).toEqual({
        symbol: 'BTCUSDT',
        markPrice: '65000.10000000',
        indexPrice: '65000.10000000',
        estimatedSettlePrice: '65000.10000000',
        lastFundingRate: '0.00020000',
        interestRate: '0.00001250',
        nextFundingTime: expect.any(Number),
        time: PRICE_TIME,
      });
      const next = (t: number) => (Math.floor(t / EIGHT_H) + 1) * EIGHT_H;
      expect([next(before), next(after)]).toContain(r.body.nextFundingTime);
    });

    it('no symbol: every market in order, weight 10; no settlement yet reads 0, no price zeros', async () => {
      const before = Date.now();
      const r = await get('premiumIndex');
      expect([r.status, weight(r)]).toEqual([200, 10]);
      expect(r.body.map((x: { symbol: string }) => x.symbol)).toEqual(SYMBOLS);
      expect(r.body.map((x: { lastFundingRate: string }) => x.lastFundingRate)).toEqual([
        '0.00020000',
        '0.00005000',
        '0.00000000',
      ]);
      expect(r.body[2]).toMatchObject({ markPrice: '0.00000000', indexPrice: '0.00000000' });
      expect(r.body[2].time).toBeGreaterThanOrEqual(before);
    });

    it('an absent symbol is 400 -1121', async () => {
      for (const symbol of ['DOGEUSDT', 'doge-usd', '']) {
        const r = await get('premiumIndex', { symbol });
        expect([r.status, r.body]).toEqual([400, invalidSymbol]);
      }
    });
  });

  describe('fundingRate', () => {
    const rates = (q: Record<string, string | number>) =>
      get('fundingRate', q).then((r) => {
        expect([r.status, weight(r)]).toEqual([200, 1]);
        return r.body.map((x: { symbol: string; fundingTime: number }) => [x.symbol, x.fundingTime]);
      });

    it('settled rates of a symbol, oldest first, in Binance rows', async () => {
      const r = await get('fundingRate', { symbol: 'BTCUSDT' });
      expect(r.body).toEqual([
        { symbol: 'BTCUSDT', fundingRate: '0.00010000', fundingTime: F1, markPrice: '64000.50000000' },
        { symbol: 'BTCUSDT', fundingRate: '-0.00037500', fundingTime: F2, markPrice: '64100.00000000' },
        { symbol: 'BTCUSDT', fundingRate: '0.00020000', fundingTime: F3, markPrice: '64200.10000000' },
      ]);
    });

    it('honours startTime, endTime and limit (from startTime forward, else the latest)', async () => {
      expect(await rates({ symbol: 'BTCUSDT', startTime: F2 })).toEqual([
        ['BTCUSDT', F2],
        ['BTCUSDT', F3],
      ]);
      expect(await rates({ symbol: 'BTCUSDT', endTime: F2 })).toEqual([
        ['BTCUSDT', F1],
        ['BTCUSDT', F2],
      ]);
      expect(await rates({ symbol: 'BTCUSDT', startTime: F1 + 1, endTime: F3 - 1 })).toEqual([
        ['BTCUSDT', F2],
      ]);
      expect(await rates({ symbol: 'BTCUSDT', startTime: F1, limit: 1 })).toEqual([['BTCUSDT', F1]]);
      expect(await rates({ symbol: 'BTCUSDT', limit: 1 })).toEqual([['BTCUSDT', F3]]);
      expect(await rates({ symbol: 'SOLUSDT' })).toEqual([]);
    });

    it('without a symbol: the rows of every symbol, by time', async () => {
      expect(await rates({})).toEqual([
        ['BTCUSDT', F1],
        ['BTCUSDT', F2],
        ['ETHUSDT', F2],
        ['BTCUSDT', F3],
      ]);
      expect(await rates({ startTime: F2, endTime: F2 })).toEqual([
        ['BTCUSDT', F2],
        ['ETHUSDT', F2],
      ]);
    });

    it('an absent symbol is 400 -1121; limit below 1 is -1102', async () => {
      const r = await get('fundingRate', { symbol: 'NOPE' });
      expect([r.status, r.body]).toEqual([400, invalidSymbol]);
      expect((await get('fundingRate', { limit: 0 })).body.code).toBe(-1102);
    });
  });

  it("fundingInfo: every market's clamp and interval, weight 1", async () => {
    const r = await get('fundingInfo');
    expect([r.status, weight(r)]).toEqual([200, 1]);
    expect(r.body).toEqual(
      SYMBOLS.map((symbol) => ({
        symbol,
        adjustedFundingRateCap: '0.02000000',
        adjustedFundingRateFloor: '-0.02000000',
        fundingIntervalHours: 8,
        disclaimer: false,
      })),
    );
  });

  describe('openInterest', () => {
    it("the spec's long + short, the same figures as the native view", async () => {
      const before = Date.now();
      const r = await get('openInterest', { symbol: 'BTC_USDT' });
      expect([r.status, weight(r)]).toEqual([200, 1]);
      expect(r.body).toEqual({ openInterest: '2.500', symbol: 'BTCUSDT', time: expect.any(Number) });
      expect(r.body.time).toBeGreaterThanOrEqual(before);
      const native = await http(`${ex.url}/api/v1/open-interest/BTCUSDT`);
      expect(native.body).toMatchObject({ long_oi: '1.250', short_oi: '1.250' });
      expect((await get('openInterest', { symbol: 'SOLUSDT' })).body.openInterest).toBe('0.00');
    });

    it('symbol is required (-1102); an absent one is 400 -1121', async () => {
      expect((await get('openInterest')).body.code).toBe(-1102);
      for (const symbol of ['DOGEUSDT', 'eth-btc']) {
        const r = await get('openInterest', { symbol });
        expect([r.status, r.body]).toEqual([400, invalidSymbol]);
      }
    });
  });
});
