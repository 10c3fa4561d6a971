export * from './matching-engine.module';
export * from './engine-commands.consumer';
export * from './markets/market-admin';
