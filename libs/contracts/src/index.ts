export * from './errors';
export * from './deployment/load-deployment';
export * from './fapi/exchange-info';
export * from './messages/primitives';
export * from './messages/commands';
export * from './messages/events';
export * from './messages/topics';
export * from './messages/asyncapi';
