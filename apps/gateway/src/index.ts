export * from './gateway.module';
export * from './streams';
