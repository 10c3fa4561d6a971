import { findMarket, parseChain } from './chain';
import { parseMarket } from './market';
import { MarketRegistry } from './market-registry';

const btc = {
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  tickSize: '0.1',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '1000000',
  maxLeverage: 125,
  defaultLeverage: 20,
  maxLongOi: '1000',
  maxShortOi: '1000',
  rank: 1,
  sortOrder: 1,
  maintenanceBrackets: [
    { notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 },
    { notionalCap: '250000', maintMarginRatio: '0.005', maxLeverage: 100 },
    { notionalCap: '1000000', maintMarginRatio: '0.01', maxLeverage: 50 },
  ],
};

describe('parseMarket', () => {
  it('derives precisions from the steps', () => {
    const m = parseMarket(btc);
    expect(m.pricePrecision).toBe(1);
    expect(m.quantityPrecision).toBe(3);
    expect(m.status).toBe('TRADING');
    expect(m.fundingIntervalHours).toBe(8);
    expect(m.fundingRateCap).toBe('0.02');
    expect(m.fundingIntervalMinutes).toBeUndefined();
  });

  it('accepts an optional funding interval in minutes, 1 to 1440', () => {
    expect(parseMarket({ ...btc, fundingIntervalMinutes: 1 }).fundingIntervalMinutes).toBe(1);
    expect(parseMarket({ ...btc, fundingIntervalMinutes: 1440 }).fundingIntervalMinutes).toBe(1440);
    expect(() => parseMarket({ ...btc, fundingIntervalMinutes: 0 })).toThrow('fundingIntervalMinutes');
    expect(() => parseMarket({ ...btc, fundingIntervalMinutes: 1441 })).toThrow('fundingIntervalMinutes');
    expect(() => parseMarket({ ...btc, fundingIntervalMinutes: 1.5 })).toThrow('fundingIntervalMinutes');
  });

  it('accepts an optional referencePrice on the tick grid', () => {
    expect(parseMarket(btc).referencePrice).toBeUndefined();
    expect(parseMarket({ ...btc, referencePrice: '65000.1' }).referencePrice).toBe('65000.1');
    expect(() => parseMarket({ ...btc, referencePrice: '65000.05' })).toThrow(/multiple of tickSize/);
    expect(() => parseMarket({ ...btc, referencePrice: '0' })).toThrow();
  });

  it('computes Binance-style cumulative maintenance amounts', () => {
    const m = parseMarket(btc);
    // cum_n = cum_{n-1} + floor_n x (ratio_n - ratio_{n-1})
    expect(m.maintenanceBrackets.map((b) => b.cum)).toEqual(['0', '50', '1300']);
  });

  it.each([
    [{ symbol: 'btcusdt' }, 'symbol'],
    [{ tickSize: '0' }, 'tickSize'],
    [{ lotSize: 'abc' }, 'lotSize'],
    [{ status: 'OPEN' }, 'status'],
    [{ maxLeverage: 0 }, 'maxLeverage'],
    [{ fundingRateCap: '0' }, 'fundingRateCap'],
  ])('rejects %p', (patch, field) => {
    expect(() => parseMarket({ ...btc, ...patch })).toThrow(field);
  });

  it('rejects a default leverage above the maximum', () => {
    expect(() => parseMarket({ ...btc, defaultLeverage: 126 })).toThrow('defaultLeverage');
  });

  it('rejects brackets whose caps do not increase', () => {
    expect(() =>
      parseMarket({
        ...btc,
        maintenanceBrackets: [
          { notionalCap: '100', maintMarginRatio: '0.01', maxLeverage: 50 },
          { notionalCap: '100', maintMarginRatio: '0.02', maxLeverage: 20 },
        ],
      }),
    ).toThrow('increase');
  });
});

describe('parseChain / findMarket', () => {
  const chain = {
    chainId: 31337,
    name: 'devnet',
    settlementAsset: 'USDT',
    feeTiers: [
      { tier: 1, makerRate: '0.00016', takerRate: '0.0004' },
      { tier: 0, makerRate: '0.0002', takerRate: '0.0005' },
    ],
    markets: [btc],
  };

  it('sorts fee tiers and finds markets by alias', () => {
    const c = parseChain(chain);
    expect(c.feeTiers.map((t) => t.tier)).toEqual([0, 1]);
    expect(findMarket(c.markets, 'btc-usd')?.symbol).toBe('BTCUSDT');
    expect(findMarket(c.markets, 'BTC/USDT')?.symbol).toBe('BTCUSDT');
    expect(findMarket(c.markets, 'DOGEUSDT')).toBeUndefined();
  });

  it('rejects duplicate markets and gaps in tiers', () => {
    expect(() => parseChain({ ...chain, markets: [btc, btc] })).toThrow('duplicate');
    expect(() => parseChain({ ...chain, feeTiers: [{ tier: 2, makerRate: '0', takerRate: '0' }] })).toThrow(
      'tiers',
    );
  });
});

describe('MarketRegistry', () => {
  const registry = () => new MarketRegistry([parseMarket(btc)]);

  it('finds a market by its symbol or any alias', () => {
    const r = registry();
    for (const s of ['BTCUSDT', 'btcusdt', 'BTC-USD', 'btc/usdt', 'BTC_USDT'])
      expect(r.find(s)?.symbol).toBe('BTCUSDT');
    expect(r.find('ETHUSDT')).toBeUndefined();
  });

  it('keeps each market as it first came to be, whatever its later states', () => {
    const r = registry();
    r.setStatus('BTCUSDT', 'HALT');
    r.upsert({ ...r.find('BTCUSDT')!, status: 'CLOSE' });
    expect(r.find('btc-usd')?.status).toBe('CLOSE');
    expect(r.initial('btc-usd')?.status).toBe('TRADING');
    const eth = parseMarket({ ...btc, symbol: 'ETHUSDT', baseAsset: 'ETH', status: 'HALT' });
    r.add(eth);
    r.setStatus('ETHUSDT', 'TRADING');
    expect(r.initial('ETHUSDT')).toBe(eth);
    expect(r.initial('SOLUSDT')).toBeUndefined();
  });
});
