import { parseMarket, type FeeTier, type Market } from '../../markets/market';

/** BTCUSDT-like market (the devnet brackets' first four), for tests of the account model. */
export const BTC: Market = parseMarket({
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  tickSize: '0.1',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '5000000',
  maxLeverage: 125,
  defaultLeverage: 20,
  maxLongOi: '10000',
  maxShortOi: '10000',
  rank: 1,
  sortOrder: 1,
  maintenanceBrackets: [
    { notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 },
    { notionalCap: '600000', maintMarginRatio: '0.005', maxLeverage: 100 },
    { notionalCap: '3000000', maintMarginRatio: '0.0065', maxLeverage: 75 },
    { notionalCap: '12000000', maintMarginRatio: '0.01', maxLeverage: 50 },
  ],
});

export const ETH: Market = parseMarket({
  symbol: 'ETHUSDT',
  baseAsset: 'ETH',
  quoteAsset: 'USDT',
  tickSize: '0.01',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '3000000',
  maxLeverage: 100,
  defaultLeverage: 20,
  maxLongOi: '200000',
  maxShortOi: '200000',
  rank: 2,
  sortOrder: 2,
  maintenanceBrackets: [
    { notionalCap: '50000', maintMarginRatio: '0.005', maxLeverage: 100 },
    { notionalCap: '600000', maintMarginRatio: '0.0065', maxLeverage: 75 },
  ],
});

export const SOL: Market = parseMarket({
  symbol: 'SOLUSDT',
  baseAsset: 'SOL',
  quoteAsset: 'USDT',
  tickSize: '0.001',
  lotSize: '0.01',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '1000000',
  maxLeverage: 50,
  defaultLeverage: 10,
  maxLongOi: '2000000',
  maxShortOi: '2000000',
  rank: 3,
  sortOrder: 3,
  maintenanceBrackets: [
    { notionalCap: '10000', maintMarginRatio: '0.01', maxLeverage: 50 },
    { notionalCap: '50000', maintMarginRatio: '0.015', maxLeverage: 25 },
  ],
});

/** The devnet fee tiers. */
export const FEE_TIERS: FeeTier[] = [
  ['0.0002', '0.0005'],
  ['0.00016', '0.0004'],
  ['0.00014', '0.00035'],
  ['0.00012', '0.00032'],
  ['0.0001', '0.0003'],
  ['0.00008', '0.00027'],
  ['0.00006', '0.00025'],
  ['0.00004', '0.00022'],
  ['0.00002', '0.0002'],
  ['0', '0.00017'],
].map(([makerRate, takerRate], tier) => ({ tier, makerRate, takerRate }));

export function lookup(...markets: Market[]): (symbol: string) => Market | undefined {
  return (symbol) => markets.find((m) => m.symbol === symbol);
}
