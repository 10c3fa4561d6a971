export * from './market-data.module';
export * from './ticker/ticker-book';
