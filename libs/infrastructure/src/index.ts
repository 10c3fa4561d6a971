export * from './infrastructure.module';
export * from './markets/markets-projection';
export * from './shards/shard-partitions';
export * from './shards/shard-input';
export * from './ops/cluster-setup';
export * from './projections/resume-at-mark';
export * from './projections/snapshot-stage';
export * from './projections/valid-messages';
