export * from './eventually';
export * from './free-port';
export * from './exchange-process';
export * from './http-client';
export * from './kafka-client-leaks';
export * from './kafka-mock';
export * from './prometheus-text';
export * from './promql';
