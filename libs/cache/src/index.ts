export * from './hot-store';
export * from './memory-hot-store';
export * from './redis-hot-store';
export * from './cache.module';
