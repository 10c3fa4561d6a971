export * from './infrastructure.module';
export * from './markets/markets-projection';
export * from './shards/shard-partitions';
export * from './markets/ticker-book';
export * from './markets/tickers.module';
export * from './ops/cluster-setup';
