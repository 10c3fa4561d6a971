export * from './algo-status';
export * from './trailing-stop';
export * from './algo-rules';
export * from './order-limits';
