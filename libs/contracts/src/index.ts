export * from './errors';
export * from './deployment/load-deployment';
export * from './fapi/exchange-info';
