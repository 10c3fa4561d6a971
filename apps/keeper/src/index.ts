export * from './keeper.module';
