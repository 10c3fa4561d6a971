import { RATE_LIMITS } from '@perp/contracts';
import { loadAppConfig } from '@perp/runtime';
import {
  amountOf,
  batchOrderCount,
  BINANCE_CEILINGS,
  bySymbol,
  ceilingsOf,
  countHeaders,
  depthWeight,
  exceeded,
  exchangeInfoRateLimits,
  intervalSuffix,
  intervalWords,
  isFapiPath,
  klinesWeight,
  loginWindows,
  orderWindows,
  pathOf,
  PUBLIC_WEIGHTS,
  retryAfterSeconds,
  weightWindows,
  windowKey,
} from './rate-limit-rules';

const weightOf = (path: string, params: Record<string, unknown> = {}) =>
  amountOf(PUBLIC_WEIGHTS[path] ?? 1, () => params, 1);

describe('rate-limit rules (pure)', () => {
  describe('ceilings', () => {
    it("default to Binance USD-M's, which exchangeInfo publishes", () => {
      const c = ceilingsOf(loadAppConfig({}));
      expect(c).toEqual(BINANCE_CEILINGS);
      expect(c).toMatchObject({ weightPerMinute: 2400, ordersPer10s: 300, ordersPerMinute: 1200 });
      expect(exchangeInfoRateLimits(c)).toEqual(RATE_LIMITS);
    });

    it('come from RATE_LIMIT_* and refuse anything but a positive integer', () => {
      const c = ceilingsOf(
        loadAppConfig({
          RATE_LIMIT_WEIGHT_PER_MIN: '10',
          RATE_LIMIT_ORDERS_PER_10S: '3',
          RATE_LIMIT_ORDERS_PER_MIN: '5',
          RATE_LIMIT_LOGIN_PER_MIN: '2',
        }),
      );
      expect(c).toEqual({ weightPerMinute: 10, ordersPer10s: 3, ordersPerMinute: 5, loginPerMinute: 2 });
      expect(() => loadAppConfig({ RATE_LIMIT_WEIGHT_PER_MIN: '0' })).toThrow('RATE_LIMIT_WEIGHT_PER_MIN');
      expect(() => loadAppConfig({ RATE_LIMIT_ORDERS_PER_10S: '1.5' })).toThrow('RATE_LIMIT_ORDERS_PER_10S');
      expect(() => loadAppConfig({ RATE_LIMIT_LOGIN_PER_MIN: 'many' })).toThrow('RATE_LIMIT_LOGIN_PER_MIN');
    });
  });

  describe('windows, keys and headers', () => {
    it("names intervals as Binance's headers do", () => {
      expect(intervalSuffix(60_000)).toBe('1M');
      expect(intervalSuffix(10_000)).toBe('10S');
      expect(intervalSuffix(90_000)).toBe('90S');
      expect(intervalSuffix(3_600_000)).toBe('1H');
      expect(intervalSuffix(86_400_000)).toBe('1D');
      expect(intervalWords(10_000)).toBe('10 SECOND');
      expect(intervalWords(60_000)).toBe('1 MINUTE');
      expect(() => intervalSuffix(1500)).toThrow(RangeError);
      expect(() => intervalSuffix(0)).toThrow(RangeError);
    });

    it('keys a counter by kind, window and subject', () => {
      expect(windowKey('weight', 60_000, 'ip:10.0.0.1')).toBe('rate-limit:weight:1m:ip:10.0.0.1');
      expect(windowKey('orders', 10_000, 'user:u1')).toBe('rate-limit:orders:10s:user:u1');
      expect(windowKey('login', 60_000, 'ip:::1')).toBe('rate-limit:login:1m:ip:::1');
    });

    it('weight per IP per minute; orders per user per 10 s and per minute; login per IP', () => {
      const c = { weightPerMinute: 10, ordersPer10s: 3, ordersPerMinute: 5, loginPerMinute: 2 };
      expect(weightWindows(c, '1.2.3.4')).toEqual([
        {
          key: 'rate-limit:weight:1m:ip:1.2.3.4',
          windowMs: 60_000,
          limit: 10,
          header: 'X-MBX-USED-WEIGHT-1M',
        },
      ]);
      expect(orderWindows(c, 'u1')).toEqual([
        { key: 'rate-limit:orders:10s:user:u1', windowMs: 10_000, limit: 3, header: 'X-MBX-ORDER-COUNT-10S' },
        { key: 'rate-limit:orders:1m:user:u1', windowMs: 60_000, limit: 5, header: 'X-MBX-ORDER-COUNT-1M' },
      ]);
      expect(loginWindows(c, '1.2.3.4')).toEqual([
        { key: 'rate-limit:login:1m:ip:1.2.3.4', windowMs: 60_000, limit: 2 },
      ]);
    });

    it('refuses when the amount would pass a ceiling; Retry-After waits for every refusing window', () => {
      const windows = orderWindows({ ...BINANCE_CEILINGS, ordersPer10s: 3, ordersPerMinute: 5 }, 'u');
      const states = [
        { count: 2, resetInMs: 4_000 },
        { count: 4, resetInMs: 41_500 },
      ];
      expect(exceeded(windows, states, 0)).toEqual([]);
      expect(exceeded(windows, states, 1)).toEqual([]);
      expect(exceeded(windows, states, 2)).toEqual([0, 1]);
      expect(exceeded(windows, [states[0]!, { count: 5, resetInMs: 1 }], 1)).toEqual([1]);
      expect(retryAfterSeconds(states, [0])).toBe(4);
      expect(retryAfterSeconds(states, [0, 1])).toBe(42);
      expect(retryAfterSeconds([{ count: 9, resetInMs: 0 }], [0])).toBe(1);
      expect(countHeaders(windows, states)).toEqual({
        'X-MBX-ORDER-COUNT-10S': '2',
        'X-MBX-ORDER-COUNT-1M': '4',
      });
      expect(countHeaders(loginWindows(BINANCE_CEILINGS, 'x'), [states[0]!])).toEqual({});
    });
  });

  describe('weights (spec "Limits")', () => {
    it('public endpoints by route and parameters', () => {
      expect(weightOf('/fapi/v1/ping')).toBe(1);
      expect(weightOf('/fapi/v1/time')).toBe(1);
      expect(weightOf('/fapi/v1/exchangeInfo')).toBe(1);
      expect(weightOf('/fapi/v1/ticker/24hr', { symbol: 'BTCUSDT' })).toBe(1);
      expect(weightOf('/fapi/v1/ticker/24hr')).toBe(40);
      expect(weightOf('/fapi/v1/ticker/bookTicker', { symbol: 'BTCUSDT' })).toBe(1);
      expect(weightOf('/fapi/v1/ticker/bookTicker')).toBe(2);
      expect(weightOf('/fapi/v1/premiumIndex', { symbol: 'BTCUSDT' })).toBe(1);
      expect(weightOf('/fapi/v1/premiumIndex')).toBe(10);
      expect(weightOf('/fapi/v1/openInterest', { symbol: 'BTCUSDT' })).toBe(1);
      expect(weightOf('/fapi/v1/fundingRate')).toBe(1);
      expect(weightOf('/futures/data/openInterestHist')).toBe(1);
      expect(weightOf('/fapi/v1/somethingNew')).toBe(1);
    });

    it('klines by limit as Binance: [1,100) 1, [100,500) 2, [500,1000] 5, above 10; default 500', () => {
      const k = (limit?: string) => klinesWeight(limit === undefined ? {} : { limit });
      expect([k('1'), k('99'), k('100'), k('499'), k('500'), k('1000'), k('1001'), k('1500')]).toEqual([
        1, 1, 2, 2, 5, 5, 10, 10,
      ]);
      expect(k()).toBe(5);
      expect(k('')).toBe(5);
      expect(k('lots')).toBe(5);
      expect(weightOf('/fapi/v1/klines', { limit: '50' })).toBe(1);
    });

    it("depth by limit as Binance: 5-50 2, 100 5, 500 10, 1000 20; default 500; Binance's other weights", () => {
      const d = (limit?: string) => depthWeight(limit === undefined ? {} : { limit });
      expect([d('5'), d('50'), d('100'), d('500'), d('1000'), d(), d('lots')]).toEqual([
        2, 2, 5, 10, 20, 10, 20,
      ]);
      expect(weightOf('/fapi/v1/trades')).toBe(5);
      expect(weightOf('/fapi/v1/aggTrades')).toBe(20);
      expect(weightOf('/fapi/v1/historicalTrades')).toBe(20);
      expect(weightOf('/fapi/v2/ticker/price')).toBe(2);
      expect(weightOf('/fapi/v1/markPriceKlines', { limit: '1500' })).toBe(10);
    });

    it('a rule that cannot read its parameters, or answers nonsense, gives the fallback', () => {
      const strict = () => {
        throw new Error('-1102');
      };
      expect(amountOf(strict, () => ({}), 7)).toBe(7);
      expect(
        amountOf(
          () => 3,
          () => {
            throw new Error('body');
          },
          7,
        ),
      ).toBe(7);
      expect(
        amountOf(
          () => -1,
          () => ({}),
          7,
        ),
      ).toBe(7);
      expect(
        amountOf(
          () => 1.5,
          () => ({}),
          7,
        ),
      ).toBe(7);
      expect(amountOf(30, () => ({}), 7)).toBe(30);
      expect(amountOf(bySymbol(1, 40), () => ({ symbol: ['A', 'B'] }), 7)).toBe(1);
    });

    it('batchOrders counts the entries of its JSON array', () => {
      const batch = (v: unknown) => batchOrderCount({ batchOrders: v });
      expect(batch(JSON.stringify([{}, {}, {}]))).toBe(3);
      expect(batch(encodeURIComponent('[{}]'))).toBe(0); // decoding is the query parser's job
      expect(batch('[{"symbol":"BTCUSDT"}]')).toBe(1);
      expect(batch([{}, {}])).toBe(2);
      expect(batch('not json')).toBe(0);
      expect(batch('{"symbol":"BTCUSDT"}')).toBe(0);
      expect(batchOrderCount({})).toBe(0);
    });
  });

  it('FAPI paths are /fapi/… and /futures/…, without query or trailing slash', () => {
    expect(isFapiPath('/fapi/v1/ping')).toBe(true);
    expect(isFapiPath('/futures/data/openInterestHist')).toBe(true);
    expect(isFapiPath('/api/v1/markets')).toBe(false);
    expect(isFapiPath('/fapiX')).toBe(false);
    expect(pathOf('/fapi/v1/klines?symbol=BTCUSDT&limit=5')).toBe('/fapi/v1/klines');
    expect(pathOf('/fapi/v1/ping/')).toBe('/fapi/v1/ping');
    expect(pathOf('/')).toBe('/');
  });
});
