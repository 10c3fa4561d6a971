export * from './matching-engine.module';
