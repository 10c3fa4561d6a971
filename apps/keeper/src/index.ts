export * from './keeper.module';
export * from './keeper-clock';
