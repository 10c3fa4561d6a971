import { type Market, parseMarket } from '@perp/domain';

/** A BTCUSDT market like the deployment's (tick 0.1, lot 0.001), for the views' unit tests. */
export const BTC: Market = btcMarket();

/** The same market with some fields replaced (brackets, intervals, …). */
export function btcMarket(fields: Record<string, unknown> = {}): Market {
  return parseMarket({
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
    maintenanceBrackets: [{ notionalCap: '1000000', maintMarginRatio: '0.004', maxLeverage: 125 }],
    ...fields,
  });
}
