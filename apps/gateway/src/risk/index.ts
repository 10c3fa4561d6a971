export * from './risk-client';
export * from './fapi-outcome';
export * from './risk-client.module';
