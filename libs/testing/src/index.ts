export * from './free-port';
export * from './exchange-process';
export * from './in-process-exchange';
export * from './kafka-mock';
