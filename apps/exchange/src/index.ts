export * from './exchange.module';
// For end-to-end specs: the composed exchange inside the test process.
export * from './testing/in-process-exchange';
