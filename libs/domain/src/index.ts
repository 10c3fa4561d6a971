export * from './money/money';
export * from './symbols/normalize-symbol';
export * from './markets/market';
export * from './markets/chain';
export * from './markets/market-registry';
export * from './market-stats/rolling-24h';
export * from './order-book';
export * from './account';
