export * from './risk.module';
export * from './risk-commands.consumer';
export * from './shard/risk-shard';
export * from './router/risk-router';
export * from './projections/history-projector';
