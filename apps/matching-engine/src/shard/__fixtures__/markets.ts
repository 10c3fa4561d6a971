import { parseMarket } from '@perp/domain';

/** A BTCUSDT market with one maintenance bracket, for the engine shard specs. */
export const BTC = parseMarket({
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
  maintenanceBrackets: [{ notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 }],
});

export const ALICE = `0x${'a'.repeat(40)}`;
export const BOB = `0x${'b'.repeat(40)}`;
