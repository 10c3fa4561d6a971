export * from './exchange.module';
