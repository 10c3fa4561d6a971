export * from './fapi-errors';
export * from './auth-errors';
export * from './native-errors';
export * from './exceptions';
