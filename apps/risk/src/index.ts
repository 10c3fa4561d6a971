export * from './risk.module';
